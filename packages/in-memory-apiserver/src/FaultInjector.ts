import type { ObjectStore } from './ObjectStore.js';
import type { ApiError } from './ApiError.js';
import { genericError } from './statusErrors.js';
import type { ApiServerFaults, FailNextOptions, RequestSummary } from './types.js';
import type { WatchHub } from './WatchHub.js';

interface FailRule {
  remaining: number;
  status: number;
  opts: FailNextOptions;
}

/**
 * The fault hooks of the in-memory API server, plus the state the request
 * handler consults: pending `failNext` rules and the stall switch with the
 * requests parked while it is on.
 *
 * Easy to get wrong: rules are consumed in the order they were added, a
 * request consumes at most one rule, and requests that a rule's `match`
 * rejects do not count.
 */
export class FaultInjector implements ApiServerFaults {
  private rules: FailRule[] = [];
  private stalled = false;
  private parked: Array<() => void> = [];

  constructor(
    private readonly hub: WatchHub,
    private readonly store: ObjectStore,
  ) {}

  dropWatches(): void {
    this.hub.dropAll();
  }

  closeWatches(): void {
    this.hub.closeAll();
  }

  failNext(count: number, status: number, opts: FailNextOptions = {}): void {
    if (!Number.isInteger(count) || count < 0) throw new RangeError(`failNext: count must be a non-negative integer, got ${count}`);
    if (!Number.isInteger(status) || status < 100 || status > 599) {
      throw new RangeError(`failNext: status must be an HTTP status code, got ${status}`);
    }
    if (count > 0) this.rules.push({ remaining: count, status, opts });
  }

  stall(enabled: boolean): void {
    if (this.stalled === enabled) return;
    this.stalled = enabled;
    this.hub.setStalled(enabled);
    if (!enabled) {
      const parked = this.parked;
      this.parked = [];
      for (const resume of parked) resume();
    }
  }

  expireAll(): void {
    this.store.forgetHistory();
  }

  timeOutStreamingLists(count: number): void {
    if (!Number.isInteger(count) || count < 0) {
      throw new RangeError(`timeOutStreamingLists: count must be a non-negative integer, got ${count}`);
    }
    this.hub.timeOutStreamingLists(count);
  }

  /** True while stalled; the handler then parks the request with {@link park}. */
  isStalled(): boolean {
    return this.stalled;
  }

  /** Holds a request until the stall is lifted (or the server stops; then it is simply dropped). */
  park(resume: () => void): void {
    this.parked.push(resume);
  }

  /** Forgets parked requests (their sockets are destroyed by the server). */
  clearParked(): void {
    this.parked = [];
  }

  /** The error the next matching rule injects for `req`, consuming one use of it. */
  takeFailure(req: RequestSummary): ApiError | undefined {
    for (const rule of this.rules) {
      if (rule.opts.match !== undefined && !rule.opts.match(req)) continue;
      rule.remaining--;
      if (rule.remaining === 0) this.rules = this.rules.filter((r) => r !== rule);
      return genericError(rule.status, rule.opts.retryAfterSeconds);
    }
    return undefined;
  }
}
