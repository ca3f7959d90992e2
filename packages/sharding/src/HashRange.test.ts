import { describe, expect, it } from '@jest/globals';
import { fnv1a64 } from './fnv1a64.js';
import { formatHashBound, HASH_SPACE_END, inRanges, mergeRanges, shardSelector, validateRanges } from './HashRange.js';
import { ShardingConfigError } from './ShardingConfigError.js';

describe('fnv1a64', () => {
  it('matches the API server on the known vectors', () => {
    expect(fnv1a64('team-delta')).toBe(0x0d857612654ec793n);
    expect(fnv1a64('payments')).toBe(0xe17ac5686623db26n);
    expect(fnv1a64('')).toBe(0xcbf29ce484222325n);
  });

  it('hashes UTF-8 bytes, not UTF-16 code units', () => {
    // 'é' is two UTF-8 bytes (c3 a9); hashing them one by one gives the same value.
    let h = 0xcbf29ce484222325n;
    for (const b of [0xc3, 0xa9]) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
    expect(fnv1a64('é')).toBe(h);
  });
});

describe('shardSelector', () => {
  it('writes the server syntax: 16 hex digits, the top bound, ranges joined with ||', () => {
    expect(shardSelector('namespace', [{ start: 0x8000000000000000n, end: 0xc000000000000000n }])).toBe(
      "shardRange(object.metadata.namespace, '0x8000000000000000', '0xc000000000000000')",
    );
    expect(
      shardSelector('uid', [
        { start: 0n, end: 0x10n },
        { start: 0xc000000000000000n, end: HASH_SPACE_END },
      ]),
    ).toBe(
      "shardRange(object.metadata.uid, '0x0000000000000000', '0x0000000000000010') || " +
        "shardRange(object.metadata.uid, '0xc000000000000000', '0x10000000000000000')",
    );
  });

  it('refuses bad keys, empty, reversed, overlapping and out-of-space ranges, and no range', () => {
    expect(() => shardSelector('name' as never, [{ start: 0n, end: 1n }])).toThrow(ShardingConfigError);
    expect(() => shardSelector('uid', [])).toThrow(/at least one range/);
    expect(() => validateRanges([{ start: 5n, end: 5n }])).toThrow(/ranges\[0\]/);
    expect(() => validateRanges([{ start: 0n, end: HASH_SPACE_END + 1n }])).toThrow(ShardingConfigError);
    expect(() => validateRanges([{ start: -1n, end: 1n }])).toThrow(ShardingConfigError);
    expect(() =>
      validateRanges([
        { start: 0n, end: 10n },
        { start: 5n, end: 20n },
      ]),
    ).toThrow(/ranges\[1\]: .*overlap/);
    expect(() => validateRanges([{ start: 0, end: 1 } as never])).toThrow(/bigints/);
    expect(() => formatHashBound(HASH_SPACE_END + 1n)).toThrow(ShardingConfigError);
  });

  it('tests membership start inclusive, end exclusive, and merges adjacent ranges', () => {
    const r = [{ start: 10n, end: 20n }];
    expect([9n, 10n, 19n, 20n].map((h) => inRanges(h, r))).toEqual([false, true, true, false]);
    expect(
      mergeRanges([
        { start: 0n, end: 5n },
        { start: 5n, end: 9n },
        { start: 10n, end: 12n },
      ]),
    ).toEqual([
      { start: 0n, end: 9n },
      { start: 10n, end: 12n },
    ]);
  });
});
