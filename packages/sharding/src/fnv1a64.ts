const OFFSET_BASIS = 0xcbf29ce484222325n;
const PRIME = 0x100000001b3n;
const MASK = 0xffffffffffffffffn;
const encoder = new TextEncoder();

/**
 * The 64-bit FNV-1a hash of `key`'s UTF-8 bytes: the hash the API server's
 * `shardSelector` ranges are over (KEP-5866). `fnv1a64('team-delta')` is
 * `0x0d857612654ec793n`.
 */
export function fnv1a64(key: string): bigint {
  let hash = OFFSET_BASIS;
  for (const byte of encoder.encode(key)) {
    hash ^= BigInt(byte);
    hash = (hash * PRIME) & MASK;
  }
  return hash;
}
