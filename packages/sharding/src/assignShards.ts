import { fnv1a64 } from './fnv1a64.js';
import { HASH_SPACE_END, inRanges, type HashRange } from './HashRange.js';
import { ShardingConfigError } from './ShardingConfigError.js';

/** Each live member's hash ranges; every hash of the space is in exactly one member's ranges. */
export type ShardAssignment = ReadonlyMap<string, readonly HashRange[]>;

/**
 * Cuts the hash space into one contiguous range per member so that each
 * member owns about the same number of the `keys` present (namespaces, or
 * uids): split points are placed between the sorted hashes of the keys,
 * not at equal fractions of the space, because short similar names
 * cluster (the eight one-letter namespaces all hash into one quarter).
 *
 * Guarantees:
 * - deterministic: the result depends only on the set of members and the
 *   set of keys (both are deduplicated and sorted, so every replica
 *   computes the same assignment from the same view);
 * - complete and disjoint: every 64-bit hash, including those of keys
 *   that do not exist yet, is in exactly one member's range;
 * - balanced: member counts of present keys differ by at most one (with
 *   fewer keys than members, some members own an empty list);
 * - contiguous: member `i` (in identity order) owns the `i`-th range, so a
 *   member's share is one `shardRange` term;
 * - with no keys, equal fractions of the hash space.
 *
 * Not guaranteed: minimal movement. When a member joins or leaves, every
 * split point moves to its new quantile, so up to about half of the keys
 * change owner (see `movedKeys`). Keys created or deleted between
 * membership changes move the quantiles too: recompute on membership
 * changes, and on key changes only once `imbalance` exceeds a tolerance.
 * @throws ShardingConfigError when `members` is empty or holds an empty string.
 */
export function assignShards(members: readonly string[], keys: readonly string[] = []): ShardAssignment {
  const sorted = [...new Set(members)].sort();
  if (sorted.length === 0) throw new ShardingConfigError('members: at least one member is required');
  if (sorted.some((m) => typeof m !== 'string' || m === '')) throw new ShardingConfigError('members: identities must be non-empty strings');
  const n = sorted.length;
  const hashes = [...new Set(keys.map(fnv1a64))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const k = hashes.length;
  const bounds: bigint[] = [0n];
  for (let i = 1; i < n; i++) {
    if (k === 0) {
      bounds.push((HASH_SPACE_END * BigInt(i)) / BigInt(n));
      continue;
    }
    const j = Math.floor((i * k) / n); // member i owns keys [j, next j)
    if (j === 0) bounds.push(0n);
    else {
      // Midway between the last key of member i-1 and the first of member i: new keys split evenly around it.
      const lo = hashes[j - 1]!;
      const hi = hashes[j]!;
      bounds.push(lo + (hi - lo + 1n) / 2n);
    }
  }
  bounds.push(HASH_SPACE_END);
  const out = new Map<string, readonly HashRange[]>();
  sorted.forEach((member, i) => {
    const start = bounds[i]!;
    const end = bounds[i + 1]!;
    out.set(member, start < end ? [Object.freeze({ start, end })] : []);
  });
  return out;
}

/** Equal fractions of the hash space, one per member (what a split ignoring the keys gives): for comparison. */
export function equalShards(members: readonly string[]): ShardAssignment {
  return assignShards(members, []);
}

/** The member whose ranges hold `hash`. */
export function ownerOf(assignment: ShardAssignment, hash: bigint): string | undefined {
  for (const [member, ranges] of assignment) if (inRanges(hash, ranges)) return member;
  return undefined;
}

/** How many of the distinct `keys` each member owns. */
export function keysPerMember(assignment: ShardAssignment, keys: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>([...assignment.keys()].map((m) => [m, 0]));
  for (const key of new Set(keys)) {
    const owner = ownerOf(assignment, fnv1a64(key));
    if (owner !== undefined) counts.set(owner, (counts.get(owner) ?? 0) + 1);
  }
  return counts;
}

/** Largest minus smallest member key count: 0 or 1 right after `assignShards`. */
export function imbalance(assignment: ShardAssignment, keys: readonly string[]): number {
  const counts = [...keysPerMember(assignment, keys).values()];
  return counts.length === 0 ? 0 : Math.max(...counts) - Math.min(...counts);
}

/** The keys whose owner differs between two assignments: what a rebalance hands over. */
export function movedKeys(before: ShardAssignment, after: ShardAssignment, keys: readonly string[]): string[] {
  return [...new Set(keys)].filter((key) => {
    const h = fnv1a64(key);
    return ownerOf(before, h) !== ownerOf(after, h);
  });
}
