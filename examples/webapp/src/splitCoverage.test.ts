import { describe, expect, it } from '@jest/globals';
import { assignShards, HASH_SPACE_END } from '@protean/sharding';
import { namespacesByReplica, ownersOf, tilesHashSpace } from './splitCoverage.js';

const NAMESPACES = ['payments', 'checkout', 'catalog', 'search', 'accounts', 'billing'];

describe('splitCoverage', () => {
  it('accepts the ranges of an assignment, which cover the hash space exactly once', () => {
    const split = assignShards(['replica-0', 'replica-1', 'replica-2'], NAMESPACES);
    expect(tilesHashSpace(split)).toBe(true);
    const byReplica = namespacesByReplica(NAMESPACES, split);
    expect([...byReplica.values()].map((n) => n.length)).toEqual([2, 2, 2]);
    expect([...byReplica.values()].flat().sort()).toEqual([...NAMESPACES].sort());
    for (const ns of NAMESPACES) expect(ownersOf(ns, split)).toHaveLength(1);
  });

  it('names a gap: a replica that has not reported its share yet', () => {
    const split = new Map(assignShards(['replica-0', 'replica-1'], NAMESPACES));
    split.set('replica-1', []);
    expect(tilesHashSpace(split)).toMatch(/^gap \[0x[0-9a-f]+, 2\^64\) after replica-0$/);
  });

  it('names an overlap: two replicas that both think they own a range', () => {
    const before = assignShards(['replica-0', 'replica-1'], NAMESPACES);
    const stale = new Map(before);
    stale.set('replica-1', [{ start: 0n, end: HASH_SPACE_END }]);
    expect(tilesHashSpace(stale)).toMatch(/overlaps/);
    const ns = NAMESPACES.find((n) => ownersOf(n, before)[0] === 'replica-0')!;
    expect(ownersOf(ns, stale).sort()).toEqual(['replica-0', 'replica-1']);
    expect(namespacesByReplica([ns], stale).get('replica-0')).toEqual([]);
  });
});
