import { formatHashBound, HASH_SPACE_END, type HashRange } from './HashRange.js';

// Set arithmetic over lists of hash ranges. Every function accepts any list
// (unsorted, overlapping, adjacent) and returns the normal form: sorted,
// disjoint, adjacent ranges merged.

/** `ranges` sorted, with overlapping and adjacent ranges merged. */
export function normalizeRanges(ranges: readonly HashRange[]): HashRange[] {
  const sorted = ranges.filter((r) => r.start < r.end).sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const out: HashRange[] = [];
  for (const r of sorted) {
    const last = out.at(-1);
    if (last !== undefined && r.start <= last.end) {
      if (r.end > last.end) out[out.length - 1] = { start: last.start, end: r.end };
    } else out.push({ start: r.start, end: r.end });
  }
  return out;
}

/** Every hash in `a` or in `b`. */
export function unionRanges(...lists: readonly (readonly HashRange[])[]): HashRange[] {
  return normalizeRanges(lists.flat());
}

/** Every hash in both `a` and `b`. */
export function intersectRanges(a: readonly HashRange[], b: readonly HashRange[]): HashRange[] {
  const x = normalizeRanges(a);
  const y = normalizeRanges(b);
  const out: HashRange[] = [];
  let i = 0;
  let j = 0;
  while (i < x.length && j < y.length) {
    const start = x[i]!.start > y[j]!.start ? x[i]!.start : y[j]!.start;
    const end = x[i]!.end < y[j]!.end ? x[i]!.end : y[j]!.end;
    if (start < end) out.push({ start, end });
    if (x[i]!.end < y[j]!.end) i++;
    else j++;
  }
  return out;
}

/** Every hash in `a` but not in `b`. */
export function subtractRanges(a: readonly HashRange[], b: readonly HashRange[]): HashRange[] {
  const cut = normalizeRanges(b);
  const out: HashRange[] = [];
  for (const r of normalizeRanges(a)) {
    let start = r.start;
    for (const c of cut) {
      if (c.end <= start || c.start >= r.end) continue;
      if (c.start > start) out.push({ start, end: c.start });
      start = c.end;
      if (start >= r.end) break;
    }
    if (start < r.end) out.push({ start, end: r.end });
  }
  return out;
}

/** True when `a` and `b` cover the same hashes. */
export function sameRanges(a: readonly HashRange[], b: readonly HashRange[]): boolean {
  const x = normalizeRanges(a);
  const y = normalizeRanges(b);
  return x.length === y.length && x.every((r, i) => r.start === y[i]!.start && r.end === y[i]!.end);
}

/** The share of the whole hash space that `ranges` cover, in [0, 1]. */
export function rangeFraction(ranges: readonly HashRange[]): number {
  let total = 0n;
  for (const r of normalizeRanges(ranges)) total += r.end - r.start;
  return Number((total * 1_000_000n) / HASH_SPACE_END) / 1_000_000;
}

/** `[0x..., 0x...)` per range, for logs. */
export function describeRanges(ranges: readonly HashRange[]): string[] {
  return normalizeRanges(ranges).map((r) => `[${formatHashBound(r.start)}, ${formatHashBound(r.end)})`);
}
