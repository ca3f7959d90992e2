import type { ObjectIdentifiers, RateLimitingQueue } from '@protean/core';

/** Gets the next item and marks it done. */
export async function take<T>(q: RateLimitingQueue<T>): Promise<T> {
  const result = await q.get();
  if (result.shutdown) throw new Error('queue unexpectedly shut down');
  q.done(result.item);
  return result.item;
}

/** Takes `count` items one after the other (each marked done) and returns their names. */
export async function takeNames(q: RateLimitingQueue<ObjectIdentifiers>, count: number): Promise<string[]> {
  const names: string[] = [];
  for (let i = 0; i < count; i++) names.push((await take(q)).name);
  return names;
}
