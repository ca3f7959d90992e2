import { realClock, type Clock, type Logger, type LogSummarizer } from '@protean/core';
import { networkErrorCause } from '@protean/core/internal';
import { Backoff } from './Backoff.js';
import type { KubernetesRequestError } from './KubernetesRequestError.js';
import { rootCause, serverOf } from './unfixableFailure.js';

/** Interval of the informers' own {@link LogSummarizer}s (one per source, or one per informer). */
export const INFORMER_LOG_SUMMARY_INTERVAL_MS = 5000;

/** Retry tuning of an informer; see `KubernetesInformerOptions`. */
export interface RetryPolicyOptions {
  /** Time source of every delay and timeout. Default: the real clock. */
  readonly clock?: Clock;
  /** Uniform random numbers in [0, 1) for jitter and watch timeouts. Default `Math.random`. */
  readonly random?: () => number;
  /**
   * Backoff of failed requests: `initialMs` (800) doubling to `maxMs`
   * (30 000), `jitter` ±20 %, starting over after `resetAfterMs` (120 000)
   * without a failure.
   */
  readonly backoff?: { readonly initialMs?: number; readonly maxMs?: number; readonly jitter?: number; readonly resetAfterMs?: number };
  /** Cap of the backoff while the server answers 401/403/404 (resource not served). Default 120 000. */
  readonly notServedMaxBackoffMs?: number;
  /** Cap on a server's `Retry-After`. Default 300 000. */
  readonly maxRetryAfterMs?: number;
}

/** What to do after a failed list or watch. */
export interface RetryDecision {
  /** List again before watching (else re-watch from the last resourceVersion). */
  readonly relist: boolean;
  /** The last resourceVersion is unusable: the relist must ask for "" (most recent). */
  readonly forgetResourceVersion: boolean;
  readonly delayMs: number;
}

const NOT_SERVED = new Set([401, 403, 404]);

/**
 * The informer's reaction to failures, as client-go's Reflector reacts:
 * - 410 Expired (HTTP or in-stream): relist from "" at once the first two
 *   times, then with a backoff from 100 ms if it repeats before the watch
 *   makes progress;
 * - too large resourceVersion: relist from "" after backoff;
 * - 429: retry the same step after `Retry-After` (capped), else backoff;
 * - 401/403/404 (resource not served, not allowed): relist after a backoff
 *   that grows to minutes (`notServedMaxBackoffMs`), not a hot loop;
 * - inactivity timeout (half-open connection): re-watch at once, the
 *   watchdog itself paces it;
 * - other network failures: re-watch after backoff, without relisting;
 * - other HTTP or in-stream errors: relist after backoff.
 *
 * It logs one warning per outage and one info line on recovery; the
 * retries in between log at debug. A network failure (no HTTP status) is
 * one line naming its code, server and the socket's message, without a
 * stack; with a {@link LogSummarizer}, the same cause from many informers
 * (an API server outage) and their recoveries are summarized into one line
 * per cause per interval. Easy to get wrong: call
 * {@link succeeded} whenever a list or watch request succeeds, or the next
 * outage is not warned about.
 */
export class RetryPolicy {
  private readonly backoff: Backoff;
  private readonly notServedBackoff: Backoff;
  private readonly expiredBackoff: Backoff;
  private readonly maxRetryAfterMs: number;
  private consecutiveExpired = 0;
  private degraded = false;
  /** The key of the outage's first failure when it was a network failure (its recovery is summarized with the others'). */
  private outageKey: string | undefined;

  constructor(
    private readonly log: Logger,
    options: RetryPolicyOptions = {},
    private readonly summary?: { readonly summarizer: LogSummarizer; readonly gvr: string },
  ) {
    const b = options.backoff ?? {};
    const initialMs = b.initialMs ?? 800;
    const common = {
      clock: options.clock ?? realClock,
      random: options.random ?? Math.random,
      jitter: b.jitter ?? 0.2,
      resetAfterMs: b.resetAfterMs ?? 120_000,
    };
    this.backoff = new Backoff({ ...common, initialMs, maxMs: b.maxMs ?? 30_000 });
    // 410s in a row are a watch cache a moment behind the list it served, not a failing server: they back off from
    // 100 ms, up to the same cap.
    this.expiredBackoff = new Backoff({ ...common, initialMs: Math.min(100, initialMs), maxMs: b.maxMs ?? 30_000 });
    this.notServedBackoff = new Backoff({ ...common, initialMs, maxMs: Math.max(initialMs, options.notServedMaxBackoffMs ?? 120_000) });
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? 300_000;
  }

  onFailure(err: KubernetesRequestError): RetryDecision {
    if (err.expired) {
      // Routine: the resourceVersion fell out of the server's history. Differs from client-go: no wait the first two
      // times (a kube-apiserver just restarted answers a watch from the list it served 410 until its watch cache has
      // caught up with that list, a moment later).
      this.log.debug({ err: err.message }, 'resourceVersion expired; relisting');
      return { relist: true, forgetResourceVersion: true, delayMs: this.consecutiveExpired++ < 2 ? 0 : this.expiredBackoff.next() };
    }
    this.warnOnce(err);
    // The server went away: what it answers when back is a new story (see the 410s above).
    if (err.status === undefined) this.consecutiveExpired = 0;
    if (err.resourceVersionTooLarge) return { relist: true, forgetResourceVersion: true, delayMs: this.backoff.next() };
    if (err.status === 429) {
      const waitMs = err.retryAfterMs ?? this.backoff.next();
      return { relist: false, forgetResourceVersion: false, delayMs: Math.min(waitMs, this.maxRetryAfterMs) };
    }
    if (err.status !== undefined && NOT_SERVED.has(err.status)) {
      return { relist: true, forgetResourceVersion: false, delayMs: this.notServedBackoff.next() };
    }
    if (err.reason === 'InactivityTimeout') return { relist: false, forgetResourceVersion: false, delayMs: 0 };
    if (err.status === undefined) return { relist: false, forgetResourceVersion: false, delayMs: this.backoff.next() };
    return { relist: true, forgetResourceVersion: false, delayMs: this.backoff.next() };
  }

  /** A watch ended quickly without a single event: pace the next one. */
  onShortWatch(): number {
    return this.backoff.next();
  }

  /** The watch delivered something: a later 410 is routine again. */
  onProgress(): void {
    this.consecutiveExpired = 0;
  }

  /** A list or watch request succeeded. */
  succeeded(): void {
    if (!this.degraded) return;
    this.degraded = false;
    const key = this.outageKey;
    this.outageKey = undefined;
    if (this.summary !== undefined && key !== undefined) {
      const { gvr } = this.summary;
      this.summary.summarizer.log(`recovered ${key}`, { gvr }, 'list/watch recovered', { level: 'info', source: gvr });
      return;
    }
    this.log.info('list/watch recovered');
  }

  private warnOnce(err: KubernetesRequestError): void {
    if (this.degraded) {
      this.log.debug({ err: err.message, status: err.status }, 'still failing; backing off');
      return;
    }
    this.degraded = true;
    const code = err.status === undefined ? networkErrorCause(err) : undefined;
    if (code === undefined) {
      this.log.warn({ err: err.message, status: err.status, reason: err.reason }, 'list/watch failing; retrying with backoff');
      return;
    }
    // One line without a stack: the cause's label, the server and the socket's own words.
    const server = serverOf(err);
    const fields = { code, server, err: rootCause(err).message };
    const msg = `list/watch failing (${code}); retrying with backoff`;
    const key = `${code} ${server ?? ''}`;
    this.outageKey = key;
    if (this.summary === undefined) this.log.warn(fields, msg);
    else {
      const { gvr } = this.summary;
      this.summary.summarizer.log(key, { ...fields, gvr }, msg, { level: 'warn', source: gvr });
    }
  }
}
