/** client-go `RateLimiter`: how long an item waits before its next try. */
export interface RateLimiter<T> {
  when(item: T): number;
  forget(item: T): void;
  numRequeues(item: T): number;
}
