import type { Clock, InformerFailure, ListWatchHealth } from '@protean/core';
/** What the tracker keeps of a failure: a `KubernetesRequestError`, or the kind refusal it was. */
export type TrackedFailure = Pick<Error, 'message'> & { readonly status: number | undefined; readonly reason: string | undefined };

/**
 * The bookkeeping behind `KubernetesListWatch.health()`: the current outage
 * (first failure, count, last cause, next attempt) and when the server was
 * last heard from.
 *
 * An outage ends when a list completes, when a watch delivers its first
 * line, or when a watch has stayed open for `shortWatchMs` (an idle but
 * working watch); a watch that the server ends at once without a line does
 * not end it, so a flapping connection stays one outage.
 *
 * Easy to get wrong: call {@link heard} with each request's last activity
 * when it closes; the open request's is read at snapshot time, so the hot
 * path never stores a timestamp per event.
 */
export class InformerHealthTracker {
  private failingSinceMs: number | undefined;
  private consecutive = 0;
  private lastFailure: TrackedFailure | undefined;
  private retryAtMs: number | undefined;
  private watchOpenedAtMs: number | undefined;
  private lastHeardMs: number | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly shortWatchMs: number,
  ) {}

  /** A request failed (or a watch ended at once); the next attempt is `delayMs` away. */
  failed(err: TrackedFailure, delayMs: number): void {
    const now = this.clock.now();
    this.failingSinceMs ??= now;
    this.consecutive++;
    this.lastFailure = err;
    this.retryAtMs = now + delayMs;
    this.watchOpenedAtMs = undefined;
  }

  /** The wait is over: an attempt is in flight. */
  attempting(): void {
    this.retryAtMs = undefined;
  }

  /** The server answered a watch with 200. */
  watchOpened(): void {
    this.watchOpenedAtMs = this.clock.now();
  }

  /** The open watch ended (or the informer is between requests). */
  watchClosed(): void {
    this.watchOpenedAtMs = undefined;
  }

  /** A watch delivered a line: the outage, if any, is over. */
  progressed(): void {
    if (this.failingSinceMs !== undefined) this.recover();
  }

  /** A list (paginated or streamed) completed and was delivered. */
  listed(): void {
    this.recover();
  }

  /** Records when a closing request last heard from the server. */
  heard(ms: number | undefined): void {
    if (ms !== undefined && (this.lastHeardMs === undefined || ms > this.lastHeardMs)) this.lastHeardMs = ms;
  }

  /** The report of `KubernetesListWatch.health()`; `currentHeardMs` is the open request's last activity. */
  snapshot(currentHeardMs: number | undefined, listMode: 'streaming' | 'paginated'): ListWatchHealth {
    const now = this.clock.now();
    if (this.failingSinceMs !== undefined && this.watchOpenedAtMs !== undefined && now - this.watchOpenedAtMs >= this.shortWatchMs)
      this.recover();
    const heard =
      currentHeardMs !== undefined && (this.lastHeardMs === undefined || currentHeardMs > this.lastHeardMs)
        ? currentHeardMs
        : this.lastHeardMs;
    return {
      idleMs: heard === undefined ? undefined : Math.max(0, now - heard),
      failing: this.failure(now),
      listMode,
    };
  }

  private failure(now: number): InformerFailure | undefined {
    const err = this.lastFailure;
    if (this.failingSinceMs === undefined || err === undefined) return undefined;
    return {
      forMs: now - this.failingSinceMs,
      consecutive: this.consecutive,
      cause: err.message,
      status: err.status,
      reason: err.reason,
      retryInMs: this.retryAtMs === undefined ? undefined : Math.max(0, this.retryAtMs - now),
    };
  }

  private recover(): void {
    this.failingSinceMs = undefined;
    this.consecutive = 0;
    this.lastFailure = undefined;
    this.retryAtMs = undefined;
  }
}
