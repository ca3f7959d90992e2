import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
/** V8's full collection, exposed at run time for the tests that measure what a held value keeps alive. */
const collect = runInNewContext('gc') as () => void;

/** What JavaScript holds after full collections, in bytes: the heap in use and the memory of Buffers and ArrayBuffers. */
export function heldAfterGc(): number {
  // Two: the first frees what nothing reaches, the second the memory of the Buffers it found dead (freed after it).
  collect();
  collect();
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
}

/** 4 MiB: far above the heap's noise between two readings, far below what a test may use. */
export const BIG_CHUNK_CHARS = 4 * 1024 * 1024;
