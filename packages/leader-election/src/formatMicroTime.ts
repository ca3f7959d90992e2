/**
 * Formats epoch milliseconds as a Kubernetes `MicroTime`:
 * `2026-12-01T10:00:00.123000Z`. Easy to get wrong: the API server parses
 * exactly six fractional digits; `Date.toISOString()`'s three are a 400.
 */
export function formatMicroTime(epochMs: number): string {
  if (!Number.isFinite(epochMs)) throw new RangeError(`formatMicroTime: not a finite time: ${epochMs}`);
  return new Date(Math.floor(epochMs)).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
