import { ShardingConfigError } from './ShardingConfigError.js';

/** One past the largest 64-bit hash: the end bound of the last range (`0x10000000000000000`). */
export const HASH_SPACE_END = 1n << 64n;

/** A range of 64-bit FNV-1a hashes: `start` inclusive, `end` exclusive, `0 <= start < end <= 2^64`. */
export interface HashRange {
  readonly start: bigint;
  readonly end: bigint;
}

/** The field a shard is cut on: `object.metadata.namespace` or `object.metadata.uid`. */
export type ShardKey = 'namespace' | 'uid';

/** The whole hash space as one range. */
export const FULL_RANGE: HashRange = Object.freeze({ start: 0n, end: HASH_SPACE_END });

/** A bound as the API server wants it: `0x` + exactly 16 hex digits, or `0x10000000000000000` for the top. */
export function formatHashBound(bound: bigint): string {
  if (bound === HASH_SPACE_END) return '0x10000000000000000';
  if (bound < 0n || bound > HASH_SPACE_END) throw new ShardingConfigError(`hash bound ${bound} is outside [0, 2^64]`);
  return `0x${bound.toString(16).padStart(16, '0')}`;
}

/**
 * Checks `ranges`: each non-empty and inside the hash space, sorted by
 * start and not overlapping. An empty list (a member that owns nothing) is
 * valid.
 * @throws ShardingConfigError naming the offending range.
 */
export function validateRanges(ranges: readonly HashRange[]): void {
  let previousEnd = -1n;
  ranges.forEach((r, i) => {
    if (typeof r?.start !== 'bigint' || typeof r.end !== 'bigint') {
      throw new ShardingConfigError(`ranges[${i}]: start and end must be bigints`);
    }
    if (r.start < 0n || r.end > HASH_SPACE_END || r.start >= r.end) {
      throw new ShardingConfigError(
        `ranges[${i}]: [${formatBoundLoose(r.start)}, ${formatBoundLoose(r.end)}) must satisfy 0 <= start < end <= 2^64`,
      );
    }
    if (r.start < previousEnd) {
      throw new ShardingConfigError(`ranges[${i}]: ranges must be sorted by start and must not overlap`);
    }
    previousEnd = r.end;
  });
}

function formatBoundLoose(b: bigint): string {
  return b < 0n ? `-0x${(-b).toString(16)}` : `0x${b.toString(16)}`;
}

/** True when `hash` falls in one of `ranges` (start inclusive, end exclusive). */
export function inRanges(hash: bigint, ranges: readonly HashRange[]): boolean {
  for (const r of ranges) if (hash >= r.start && hash < r.end) return true;
  return false;
}

/**
 * Merges adjacent ranges (`a.end === b.start`) of a sorted list, so
 * `[0, m) + [m, 2^64)` becomes one range and selectors stay short.
 */
export function mergeRanges(ranges: readonly HashRange[]): HashRange[] {
  const out: HashRange[] = [];
  for (const r of ranges) {
    const last = out.at(-1);
    if (last !== undefined && last.end === r.start) out[out.length - 1] = { start: last.start, end: r.end };
    else out.push({ start: r.start, end: r.end });
  }
  return out;
}

/**
 * The `shardSelector` query parameter of a LIST or WATCH that returns only
 * objects whose `key` hashes into `ranges`, in the API server's syntax:
 * `shardRange(object.metadata.namespace, '0x8000000000000000', '0xc000000000000000')`,
 * several ranges joined with ` || `.
 * @throws ShardingConfigError for an unknown key, invalid ranges, or no range
 *   at all (a selector cannot express "nothing").
 */
export function shardSelector(key: ShardKey, ranges: readonly HashRange[]): string {
  if (key !== 'namespace' && key !== 'uid') throw new ShardingConfigError(`key: must be 'namespace' or 'uid', got ${String(key)}`);
  validateRanges(ranges);
  if (ranges.length === 0) throw new ShardingConfigError('ranges: a shard selector needs at least one range');
  return ranges.map((r) => `shardRange(object.metadata.${key}, '${formatHashBound(r.start)}', '${formatHashBound(r.end)}')`).join(' || ');
}
