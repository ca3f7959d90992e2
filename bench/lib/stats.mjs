// Small numeric helpers for the benchmarks.

/** The median of `xs` (the lower middle for an even count). */
export function median(xs) {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/** The p-th percentile (0..100) by nearest rank: the smallest value with at least p% of the values at or below it. */
export function percentile(xs, p) {
  const sorted = [...xs].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

/** CPU milliseconds (user + system) this process used since `since` (a `process.cpuUsage()` reading). */
export function cpuMsSince(since) {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

/** A seeded PRNG (mulberry32-style mixing) so every run generates the same workload. */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return ((z ^ (z >>> 16)) >>> 0) / 4294967296;
  };
}

/** Resolves after the event loop has run pending I/O and timers once. */
export function tick() {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
