import type { QueueGetResult, RateLimitingQueue } from '../contracts/index.js';
import { forwardEveryMember } from '../everyMember.js';

const ENDED: QueueGetResult<never> = Object.freeze({ shutdown: true });

/**
 * The controller's one work queue as the workers of each leadership term
 * see it. A term's view answers `get()` with `shutdown` once the term
 * ended, so that term's workers return after their current item while the
 * queue itself, and everything the informers keep adding to it, carries on
 * to the next term.
 *
 * A `get()` still waiting when its term ends is parked, not abandoned: the
 * next term's first `get()` takes it over, so no item is taken out of the
 * queue by a worker that no longer runs, and waiting workers do not pile up
 * when leadership changes while the queue is empty.
 *
 * Easy to get wrong: call {@link releaseParked} when the controller shuts
 * down; a parked `get()` then hands its item straight back with `done`, or
 * the queue's `shutdownWithDrain()` would wait for it forever.
 */
export class TermQueues<T> {
  private readonly parked: Promise<QueueGetResult<T>>[] = [];
  private released = false;

  constructor(private readonly queue: RateLimitingQueue<T>) {}

  /** The queue as the workers of the term `term` see it. */
  view(term: AbortSignal): RateLimitingQueue<T> {
    const q = this.queue;
    return forwardEveryMember<RateLimitingQueue<T>>({
      add: (item, source) => q.add(item, source),
      len: () => q.len(),
      get: () => this.get(term),
      done: (item) => q.done(item),
      shutdown: () => q.shutdown(),
      shutdownWithDrain: () => q.shutdownWithDrain(),
      shuttingDown: () => q.shuttingDown(),
      addAfter: (item, delayMs, source) => q.addAfter(item, delayMs, source),
      addRateLimited: (item, source) => q.addRateLimited(item, source),
      forget: (item) => q.forget(item),
      numRequeues: (item) => q.numRequeues(item),
      readyAt: q.readyAt === undefined ? undefined : (item) => q.readyAt!(item),
      depthByPriority: q.depthByPriority === undefined ? undefined : () => q.depthByPriority!(),
    });
  }

  /** From now on every parked or newly parked `get()` gives its item back at once (the controller is stopping). */
  releaseParked(): void {
    this.released = true;
    for (const pending of this.parked.splice(0)) this.release(pending);
  }

  private get(term: AbortSignal): Promise<QueueGetResult<T>> {
    if (term.aborted) return Promise.resolve(ENDED);
    const pending = this.parked.shift() ?? this.queue.get();
    return new Promise<QueueGetResult<T>>((resolve, reject) => {
      let settled = false;
      const onEnd = (): void => {
        if (settled) return;
        settled = true;
        if (this.released) this.release(pending);
        else this.parked.push(pending);
        resolve(ENDED);
      };
      term.addEventListener('abort', onEnd, { once: true });
      pending.then(
        (result) => {
          if (settled) return;
          settled = true;
          term.removeEventListener('abort', onEnd);
          resolve(result);
        },
        (err: unknown) => {
          if (settled) return;
          settled = true;
          term.removeEventListener('abort', onEnd);
          reject(err);
        },
      );
    });
  }

  private release(pending: Promise<QueueGetResult<T>>): void {
    pending.then(
      (result) => {
        if (!result.shutdown) this.queue.done(result.item);
      },
      () => undefined,
    );
  }
}
