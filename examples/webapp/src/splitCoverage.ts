import { fnv1a64, HASH_SPACE_END, inRanges, type HashRange } from '@protean/sharding';

/** Each replica's ranges as it reported them. */
export type RangesByReplica = ReadonlyMap<string, readonly HashRange[]>;

/**
 * Whether the replicas' ranges together cover the whole hash space exactly
 * once: `true`, or a description of the first gap or overlap found.
 * This is the state in which every namespace, also one created later, has
 * exactly one owner.
 */
export function tilesHashSpace(byReplica: RangesByReplica): true | string {
  const all = [...byReplica].flatMap(([replica, ranges]) => ranges.map((r) => ({ replica, ...r })));
  all.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  let next = 0n;
  let previous = '(start)';
  for (const r of all) {
    if (r.start > next) return `gap [0x${next.toString(16)}, 0x${r.start.toString(16)}) after ${previous}`;
    if (r.start < next) return `${r.replica} overlaps ${previous} at 0x${r.start.toString(16)}`;
    next = r.end;
    previous = r.replica;
  }
  return next === HASH_SPACE_END || `gap [0x${next.toString(16)}, 2^64) after ${previous}`;
}

/** The replicas whose ranges hold `namespace`'s hash (exactly one when the ranges tile the space). */
export function ownersOf(namespace: string, byReplica: RangesByReplica): string[] {
  const hash = fnv1a64(namespace);
  return [...byReplica].filter(([, ranges]) => inRanges(hash, ranges)).map(([replica]) => replica);
}

/** The namespaces each replica owns, in the order given; a namespace with no single owner is left out. */
export function namespacesByReplica(namespaces: readonly string[], byReplica: RangesByReplica): Map<string, string[]> {
  const out = new Map<string, string[]>([...byReplica.keys()].map((r) => [r, []]));
  for (const ns of namespaces) {
    const owners = ownersOf(ns, byReplica);
    if (owners.length === 1) out.get(owners[0]!)!.push(ns);
  }
  return out;
}
