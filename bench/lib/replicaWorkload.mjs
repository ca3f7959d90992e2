// What the replicas benchmark (replicas.mjs) and its replica processes
// (replica.child.mjs) share: the objects and the CPU-bound handler work.
import { createHash } from 'node:crypto';

export const PARENT = { group: 'bench.protean.dev', version: 'v1', resource: 'shardedparents' };
export const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };
/** The ConfigMap of each namespace every parent there watches; bumping its annotation re-reconciles them all. */
export const TRIGGER = 'trigger';
export const ROUND_ANNOTATION = 'bench.protean.dev/round';

const BLOCK = Buffer.alloc(64, 7);

/** `rounds` chained SHA-256 digests of 64 bytes: fixed CPU work on the calling thread; returns a byte so it is not optimised away. */
export function burn(rounds) {
  let digest = BLOCK;
  for (let i = 0; i < rounds; i++) digest = createHash('sha256').update(digest).digest();
  return digest[0];
}

/** CPU milliseconds of one `burn(rounds)`: the median of 7 timings. */
export function timeBurn(rounds) {
  const samples = [];
  for (let s = 0; s < 7; s++) {
    const before = process.cpuUsage();
    burn(rounds);
    const u = process.cpuUsage(before);
    samples.push((u.user + u.system) / 1000);
  }
  samples.sort((a, b) => a - b);
  return samples[3];
}
