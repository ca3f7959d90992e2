import { describe, expect, it } from '@jest/globals';
import { assignShards, equalShards, imbalance, keysPerMember, movedKeys, ownerOf } from './assignShards.js';
import { fnv1a64 } from './fnv1a64.js';
import { HASH_SPACE_END, type HashRange } from './HashRange.js';
import { ShardingConfigError } from './ShardingConfigError.js';

const ONE_LETTER = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
const TEAMS = Array.from({ length: 30 }, (_, i) => `team-${i}`);

function all(assignment: ReadonlyMap<string, readonly HashRange[]>): HashRange[] {
  return [...assignment.values()].flat().sort((a, b) => (a.start < b.start ? -1 : 1));
}

function expectPartition(assignment: ReadonlyMap<string, readonly HashRange[]>): void {
  const ranges = all(assignment);
  expect(ranges[0]!.start).toBe(0n);
  expect(ranges.at(-1)!.end).toBe(HASH_SPACE_END);
  for (let i = 1; i < ranges.length; i++) expect(ranges[i]!.start).toBe(ranges[i - 1]!.end);
}

describe('assignShards', () => {
  it('with no keys, cuts equal fractions in identity order', () => {
    const a = assignShards(['r2', 'r0', 'r1', 'r3']);
    expect([...a.keys()]).toEqual(['r0', 'r1', 'r2', 'r3']);
    expect(a.get('r1')).toEqual([{ start: 0x4000000000000000n, end: 0x8000000000000000n }]);
    expect(a.get('r3')).toEqual([{ start: 0xc000000000000000n, end: HASH_SPACE_END }]);
    expectPartition(a);
  });

  it('balances 8 one-letter namespaces over 4 members where equal fractions give one member all 8', () => {
    const members = ['r0', 'r1', 'r2', 'r3'];
    const equal = keysPerMember(equalShards(members), ONE_LETTER);
    expect([...equal.values()].sort()).toEqual([0, 0, 0, 8]);
    const balanced = assignShards(members, ONE_LETTER);
    expect([...keysPerMember(balanced, ONE_LETTER).values()]).toEqual([2, 2, 2, 2]);
    expectPartition(balanced);
  });

  it('balances 30 team namespaces over 3 members within one key, each in exactly one member', () => {
    const a = assignShards(['r0', 'r1', 'r2'], TEAMS);
    expect([...keysPerMember(a, TEAMS).values()]).toEqual([10, 10, 10]);
    expect(imbalance(a, TEAMS)).toBe(0);
    for (const ns of TEAMS) expect(ownerOf(a, fnv1a64(ns))).toBeDefined();
    const uneven = assignShards(['r0', 'r1', 'r2', 'r3'], TEAMS);
    expect(imbalance(uneven, TEAMS)).toBeLessThanOrEqual(1);
  });

  it('is deterministic: member order, duplicates and key order do not matter', () => {
    const a = assignShards(['b', 'a', 'c'], TEAMS);
    const b = assignShards(['c', 'a', 'b', 'a'], [...TEAMS].reverse().concat(TEAMS));
    expect([...b]).toEqual([...a]);
  });

  it('with fewer keys than members, still covers the space; some members own nothing', () => {
    const a = assignShards(['r0', 'r1', 'r2'], ['only']);
    expectPartition(a);
    expect([...keysPerMember(a, ['only']).values()].sort()).toEqual([0, 0, 1]);
    expect([...a.values()].filter((r) => r.length === 0).length).toBeGreaterThan(0);
  });

  it('reports what a join moves (quantile split points: not minimal)', () => {
    const before = assignShards(['r0', 'r1', 'r2'], TEAMS);
    const after = assignShards(['r0', 'r1', 'r2', 'r3'], TEAMS);
    const moved = movedKeys(before, after, TEAMS);
    // A join at the end of the identity order shifts every split point: more than the minimal 30/4.
    expect(moved.length).toBeGreaterThanOrEqual(8);
    expect(moved.length).toBeLessThanOrEqual(TEAMS.length);
  });

  it('splits 300 team namespaces 100/100/100 where equal fractions give 90/0/210; a middle leave moves only its keys', () => {
    const keys = Array.from({ length: 300 }, (_, i) => `team-${i}`);
    const members = ['r0', 'r1', 'r2'];
    expect([...keysPerMember(assignShards(members, keys), keys).values()]).toEqual([100, 100, 100]);
    expect([...keysPerMember(equalShards(members), keys).values()]).toEqual([90, 0, 210]);
    expect(movedKeys(assignShards(members, keys), assignShards(['r0', 'r2'], keys), keys)).toHaveLength(100);
    expect(movedKeys(assignShards(members, keys), assignShards([...members, 'r3'], keys), keys)).toHaveLength(150);
  });

  it('refuses no member and empty identities', () => {
    expect(() => assignShards([])).toThrow(ShardingConfigError);
    expect(() => assignShards(['a', ''])).toThrow(/non-empty/);
  });
});
