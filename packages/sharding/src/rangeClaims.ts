import type { Lease } from '@protean/leader-election';
import { FULL_RANGE, HASH_SPACE_END, formatHashBound, type HashRange } from './HashRange.js';
import { normalizeRanges } from './rangeSet.js';

/**
 * The annotation of a member lease that lists the ranges its holder holds:
 * those it may be reconciling, and those it is about to start. Bounds as
 * in a shard selector, `start-end` pairs joined with `,`
 * (`0x0000000000000000-0x8000000000000000,0x...`); empty for none.
 */
export const SHARD_HOLDS_ANNOTATION = 'sharding.protean.dev/held-ranges';

const BOUND = /^0x[0-9a-f]{16,17}$/;

/** `ranges` as the annotation's value. */
export function formatHolds(ranges: readonly HashRange[]): string {
  return normalizeRanges(ranges)
    .map((r) => `${formatHashBound(r.start)}-${formatHashBound(r.end)}`)
    .join(',');
}

/**
 * The ranges a member lease holds. A value that cannot be read counts as
 * holding everything: a reader must never take a range it cannot prove free.
 */
export function holdsOf(lease: Lease): HashRange[] {
  const annotations = (lease.metadata['annotations'] ?? {}) as Record<string, unknown>;
  const value = annotations[SHARD_HOLDS_ANNOTATION];
  if (value === undefined || value === '') return [];
  if (typeof value !== 'string') return [FULL_RANGE];
  const out: HashRange[] = [];
  for (const part of value.split(',')) {
    const [a, b, extra] = part.trim().split('-');
    if (a === undefined || b === undefined || extra !== undefined || !BOUND.test(a) || !BOUND.test(b)) return [FULL_RANGE];
    const start = BigInt(a);
    const end = BigInt(b);
    if (!(start < end && end <= HASH_SPACE_END)) return [FULL_RANGE];
    out.push({ start, end });
  }
  return normalizeRanges(out);
}

/** `lease` with its holds annotation set to `ranges` (removed when empty). */
export function withHolds(lease: Lease, ranges: readonly HashRange[]): Lease {
  const annotations = { ...((lease.metadata['annotations'] ?? {}) as Record<string, string>) };
  const value = formatHolds(ranges);
  if (value === '') delete annotations[SHARD_HOLDS_ANNOTATION];
  else annotations[SHARD_HOLDS_ANNOTATION] = value;
  return { ...lease, metadata: { ...lease.metadata, annotations } };
}
