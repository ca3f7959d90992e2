import { describe, expect, it } from '@jest/globals';
import { Random } from '@protean/core/testing';
import { FULL_RANGE, HASH_SPACE_END, inRanges, type HashRange } from './HashRange.js';
import { formatHolds, holdsOf, SHARD_HOLDS_ANNOTATION, withHolds } from './rangeClaims.js';
import { intersectRanges, normalizeRanges, rangeFraction, sameRanges, subtractRanges, unionRanges } from './rangeSet.js';

const SPACE = 64n; // small bounds, so every point can be checked

function randomRanges(r: Random): HashRange[] {
  return Array.from({ length: r.int(4) }, () => {
    const a = BigInt(r.int(Number(SPACE)));
    const b = BigInt(r.int(Number(SPACE)));
    return a <= b ? { start: a, end: b + 1n } : { start: b, end: a + 1n };
  });
}

describe('range sets', () => {
  it('union, intersection and difference agree with point membership, in normal form (random lists, seed 7)', () => {
    const r = new Random(7);
    for (let i = 0; i < 300; i++) {
      const a = randomRanges(r);
      const b = randomRanges(r);
      const u = unionRanges(a, b);
      const n = intersectRanges(a, b);
      const d = subtractRanges(a, b);
      for (const set of [u, n, d]) {
        expect(normalizeRanges(set)).toEqual(set);
        for (let j = 1; j < set.length; j++) expect(set[j]!.start > set[j - 1]!.end).toBe(true);
      }
      const wrong: bigint[] = [];
      for (let p = 0n; p <= SPACE + 1n; p++) {
        const inA = inRanges(p, a);
        const inB = inRanges(p, b);
        if (inRanges(p, u) !== (inA || inB) || inRanges(p, n) !== (inA && inB) || inRanges(p, d) !== (inA && !inB)) wrong.push(p);
      }
      expect(wrong).toEqual([]);
    }
  });

  it('compares and measures sets', () => {
    expect(
      sameRanges(
        [
          { start: 0n, end: 2n },
          { start: 2n, end: 5n },
        ],
        [{ start: 0n, end: 5n }],
      ),
    ).toBe(true);
    expect(rangeFraction([FULL_RANGE])).toBe(1);
    expect(rangeFraction([{ start: 0n, end: HASH_SPACE_END / 4n }])).toBe(0.25);
    expect(rangeFraction([])).toBe(0);
  });
});

describe('holds annotation', () => {
  it('writes and reads the ranges a member lease holds; none is no annotation', () => {
    const ranges = [
      { start: 0n, end: 0x8000000000000000n },
      { start: 0xc000000000000000n, end: HASH_SPACE_END },
    ];
    const lease = withHolds({ metadata: { name: 'm' } }, ranges);
    expect((lease.metadata['annotations'] as Record<string, string>)[SHARD_HOLDS_ANNOTATION]).toBe(
      '0x0000000000000000-0x8000000000000000,0xc000000000000000-0x10000000000000000',
    );
    expect(holdsOf(lease)).toEqual(ranges);
    expect(formatHolds([])).toBe('');
    const none = withHolds(lease, []);
    expect(none.metadata['annotations']).toEqual({});
    expect(holdsOf(none)).toEqual([]);
  });

  it('reads a value it cannot parse as holding everything, so nobody takes a range it cannot prove free', () => {
    for (const bad of ['0x0-0x1', 'garbage', '0x0000000000000001-0x0000000000000000', '0x0000000000000000-0x20000000000000000']) {
      expect(holdsOf({ metadata: { name: 'm', annotations: { [SHARD_HOLDS_ANNOTATION]: bad } } })).toEqual([FULL_RANGE]);
    }
  });
});
