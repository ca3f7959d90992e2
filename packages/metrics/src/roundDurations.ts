/**
 * A copy of a JSON-ready value with every duration rounded for reading:
 * each finite number under a key ending in `Ms` becomes an integer, or one
 * decimal below 10 ms (`ageMs: 123456.789123` becomes `123457`,
 * `durationMs: 0.4321` becomes `0.4`). Everything else is kept as is.
 *
 * Easy to get wrong: only keys ending in `Ms` are durations; counts,
 * statuses and resourceVersions are never touched.
 */
export function roundDurations(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(roundDurations);
  if (value === null || typeof value !== 'object') return value;
  // Objects with their own JSON form (Date, ...) are left to it.
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = key.endsWith('Ms') && typeof v === 'number' && Number.isFinite(v) ? roundMs(v) : roundDurations(v);
  }
  return out;
}

function roundMs(ms: number): number {
  return Math.abs(ms) < 10 ? Math.round(ms * 10) / 10 : Math.round(ms);
}
