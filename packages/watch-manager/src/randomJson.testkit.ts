/** Random JSON for the differential tests of the decoders: seeded, with the characters that break naive scanners. */

/** A seeded PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296;
  };
}

/** Random strings with the characters that break naive scanners: quotes, backslashes, brackets, control and multi-byte characters. */
export function randomString(rand: () => number): string {
  const alphabet = [
    'a',
    'z',
    '0',
    '-',
    '.',
    '/',
    ':',
    ' ',
    '"',
    '\\',
    '{',
    '}',
    '[',
    ']',
    ',',
    '\n',
    '\t',
    '\u0001',
    'ż',
    '€',
    '😀',
    '\ud800',
    'managedFields',
    '"managedFields":[',
  ];
  let s = '';
  const length = Math.floor(rand() * 8);
  for (let i = 0; i < length; i++) s += alphabet[Math.floor(rand() * alphabet.length)] as string;
  return s;
}

export function randomJson(rand: () => number, depth: number): unknown {
  const r = rand();
  if (depth > 3 || r < 0.3) return randomString(rand);
  if (r < 0.4) return Math.floor(rand() * 1e6) / (rand() < 0.5 ? 1 : 1000) - 500;
  if (r < 0.45) return [true, false, null][Math.floor(rand() * 3)];
  if (r < 0.7) return Array.from({ length: Math.floor(rand() * 3) }, () => randomJson(rand, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = Math.floor(rand() * 4); i > 0; i--) o[rand() < 0.2 ? randomString(rand) : `f:${i}`] = randomJson(rand, depth + 1);
  return o;
}

export function randomMap(rand: () => number): Record<string, string> {
  const m: Record<string, string> = {};
  for (let i = Math.floor(rand() * 4); i > 0; i--) m[rand() < 0.3 ? randomString(rand) : `k${i}`] = randomString(rand);
  return m;
}
