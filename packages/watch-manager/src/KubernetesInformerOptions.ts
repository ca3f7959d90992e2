import type { KubeConfigLike } from '@protean/transport';
import type { Logger, LogSummarizer } from '@protean/core';
import { sharedConnectionPool, type KubeConnectionPool } from '@protean/transport';
import { checkTimerDelay } from './checkTimerDelay.js';
import type { RetryPolicyOptions } from './RetryPolicy.js';
import type { KindAvailability } from './KindAvailability.js';
import type { ServerReadiness } from './ServerReadiness.js';
import { ListLimiter } from './ListLimiter.js';
import { StreamingListSupport } from './StreamingListSupport.js';

/** `Accept` of a metadata-only LIST (full objects as the fallback). */
export const LIST_ACCEPT = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
/** `Accept` of a metadata-only WATCH (full objects as the fallback). */
export const WATCH_ACCEPT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

/**
 * Tuning of a `KubernetesListWatch` (every list/watch of a
 * `KubernetesInformerSource`). Every field but `kubeConfig` has
 * a production default; tests shrink the durations.
 */
export interface KubernetesInformerOptions extends RetryPolicyOptions {
  readonly kubeConfig: KubeConfigLike;
  /** Watch one namespace only; default: all namespaces (and cluster-scoped resources). */
  readonly namespace?: string;
  readonly logger?: Logger;
  /** LIST page size (`limit`). Default 500. */
  readonly pageSize?: number;
  /** A request with no byte from the server for this long is abandoned and retried. Default 150 000 (2.5 bookmark intervals). */
  readonly inactivityTimeoutMs?: number;
  /** Bounds of the randomized server-side watch timeout. Default 300 and 600. */
  readonly minWatchTimeoutSeconds?: number;
  readonly maxWatchTimeoutSeconds?: number;
  /** A watch that ends sooner than this with no event counts as a failure (backoff). Default 1 000. */
  readonly shortWatchMs?: number;
  /**
   * How the informer lists: `'never'` (the default) pages LISTs (`limit` +
   * `continue`), decoded as they arrive; `'auto'` streams the list through
   * a watch (`sendInitialEvents=true`, client-go's WatchList) and falls back
   * to the paginated LIST when the server does not serve that form (see
   * `streamingListTimeoutMs`), or, for that list only, when the server times
   * out on it in the stream (504 "Too large resource version"); `'always'`
   * only streams (a refusal is retried as any failure). Paged is the
   * default: it synced sooner and cost kube-apiserver less CPU at every
   * size measured (200 kinds x 500 objects, 1,000 x 100, 1 x 100,000);
   * with many small kinds streaming costs the client less CPU and, until
   * the next collection, less memory (half the requests): measure yours
   * (`bench/README.md`, `anchor`).
   */
  readonly streamingList?: StreamingListMode;
  /**
   * In `'auto'` mode, a streaming list whose `k8s.io/initial-events-end`
   * bookmark has not arrived this long after the server answered is
   * abandoned for the paginated LIST. Default 60 000: a real API server
   * streams a watch-cache snapshot of 100,000 objects in a few seconds.
   */
  readonly streamingListTimeoutMs?: number;
  /**
   * Where refusals of streaming lists are remembered. A
   * `KubernetesInformerSource` shares one between its informers; default: a
   * new one per informer.
   */
  readonly streamingListSupport?: StreamingListSupport;
  /**
   * How many paginated LISTs may run at once. A `KubernetesInformerSource`
   * shares one cap between its informers (a number here; or bring a
   * {@link ListLimiter} to share one between sources; `Infinity` for no
   * cap). Default: 16. Hundreds of lists read at once hold their pages and
   * read buffers at the same time, and what they leave in malloc's heap
   * stays resident after the sync; 16 syncs as fast.
   */
  readonly listConcurrency?: number | ListLimiter;
  /**
   * Sent as the `shardSelector` parameter of every LIST and WATCH (KEP-5866,
   * gate `ShardedListAndWatch`), e.g.
   * `shardRange(object.metadata.namespace, '0x0000000000000000', '0x8000000000000000')`,
   * so the server returns only the objects of that hash range. A server
   * without the gate ignores it; `@protean/sharding` builds the selector,
   * detects which the server does and filters on the client otherwise.
   */
  readonly shardSelector?: string;
  /**
   * How requests reach the API server: `'shared'` (the default) as
   * streams of one `@protean/transport` connection pool, so every informer
   * of the KubeConfig multiplexes its lists and watches over one HTTP/2
   * connection (HTTP/1.1 keep-alive where the server offers no h2);
   * `'per-request'` opens a connection of its own for every list and
   * watch (the behaviour before the pool, kept for comparisons).
   */
  readonly connection?: InformerConnectionMode;
  /**
   * The pool of `connection: 'shared'`. Default: the pool shared by every
   * user of the same KubeConfig object (`sharedConnectionPool(kubeConfig)`,
   * also used by `@protean/client`, `@protean/leader-election` and
   * `@protean/sharding`).
   */
  readonly connectionPool?: KubeConnectionPool;
  /**
   * Where network failures and recoveries are logged, summarized per cause
   * across informers. A `KubernetesInformerSource` shares one between its
   * informers; default: one per informer (no summary across informers).
   * Core's `LogSummarizer`; the informers' own are 5 s intervals.
   */
  readonly logSummarizer?: LogSummarizer;
  /**
   * What tells a list/watch refused as not served (404) or forbidden (403)
   * that its kind may be available again, so it tries again then instead
   * of at the end of its backoff. A `KubernetesInformerSource` shares one
   * between its informers (and answers `whenAvailable` with it); default:
   * none (the backoff alone).
   */
  readonly kindAvailability?: KindAvailability;
  /**
   * What tells a list/watch that lost the API server (a network failure)
   * that it is ready again, so it lists or watches then instead of at the
   * end of its backoff. A `KubernetesInformerSource` shares one between its
   * informers (over the shared connection pool); default: none.
   */
  readonly serverReadiness?: ServerReadiness;
}

/** See {@link KubernetesInformerOptions.connection}. */
export type InformerConnectionMode = 'shared' | 'per-request';

/** See {@link KubernetesInformerOptions.streamingList}. */
export type StreamingListMode = 'auto' | 'always' | 'never';

/** {@link KubernetesInformerOptions} with every default filled in: what an informer runs with. */
export interface InformerSettings {
  readonly kubeConfig: KubeConfigLike;
  /** `undefined` = all namespaces. */
  readonly namespace: string | undefined;
  readonly pageSize: number;
  readonly inactivityTimeoutMs: number;
  readonly minWatchTimeoutSeconds: number;
  /** Never below `minWatchTimeoutSeconds`. */
  readonly maxWatchTimeoutSeconds: number;
  readonly shortWatchMs: number;
  readonly streamingList: StreamingListMode;
  readonly streamingListTimeoutMs: number;
  readonly streamingListSupport: StreamingListSupport;
  readonly listLimiter: ListLimiter;
  /** `undefined` = no `shardSelector` parameter. */
  readonly shardSelector: string | undefined;
  /** The pool requests are streams of; `undefined` = a connection per request (`connection: 'per-request'`). */
  readonly connectionPool: KubeConnectionPool | undefined;
  readonly kindAvailability: KindAvailability | undefined;
  readonly serverReadiness: ServerReadiness | undefined;
}

/**
 * Throws a `RangeError` naming the first setting of `options` out of its
 * range: `pageSize` a whole number >= 1; `inactivityTimeoutMs` and
 * `streamingListTimeoutMs` > 0, `shortWatchMs` >= 0, the watch timeouts
 * whole seconds >= 1, the retry waits >= 0 (the backoff's
 * `initialMs <= maxMs` is its `Backoff`'s check, when the list/watch is
 * built); every duration a timer is armed with at most core's
 * `MAX_TIMER_DELAY_MS` (Node fires a longer timer after 1 ms). Where
 * options enter: `new KubernetesInformerSource`, or `new
 * KubernetesListWatch` given options no source checked.
 */
export function checkInformerOptions(options: KubernetesInformerOptions): void {
  const at = (name: string): string => `KubernetesInformerSource: ${name}`;
  const whole = (name: string, value: number | undefined): void => {
    if (value !== undefined && !(Number.isInteger(value) && value >= 1)) {
      throw new RangeError(`${at(name)} must be a whole number >= 1, got ${String(value)}`);
    }
  };
  const delay = (name: string, value: number | undefined, min: 0 | 'positive'): void => {
    if (value === undefined) return;
    if (typeof value !== 'number' || Number.isNaN(value) || (min === 0 ? value < 0 : value <= 0)) {
      throw new RangeError(`${at(name)} must be a number ${min === 0 ? '>= 0' : '> 0'} (ms), got ${String(value)}`);
    }
    checkTimerDelay(at(name), value);
  };
  whole('pageSize', options.pageSize);
  delay('inactivityTimeoutMs', options.inactivityTimeoutMs, 'positive');
  delay('streamingListTimeoutMs', options.streamingListTimeoutMs, 'positive');
  delay('shortWatchMs', options.shortWatchMs, 0);
  whole('minWatchTimeoutSeconds', options.minWatchTimeoutSeconds);
  whole('maxWatchTimeoutSeconds', options.maxWatchTimeoutSeconds);
  for (const s of ['minWatchTimeoutSeconds', 'maxWatchTimeoutSeconds'] as const) {
    const seconds = options[s];
    if (seconds !== undefined) checkTimerDelay(at(s), seconds * 1000);
  }
  delay('backoff.initialMs', options.backoff?.initialMs, 0);
  delay('backoff.maxMs', options.backoff?.maxMs, 0);
  delay('backoff.resetAfterMs', options.backoff?.resetAfterMs, 0);
  delay('notServedMaxBackoffMs', options.notServedMaxBackoffMs, 0);
  delay('maxRetryAfterMs', options.maxRetryAfterMs, 0);
}

/** Fills in the defaults of `options`, once, so the informer reads named fields only. */
export function resolveInformerSettings(options: KubernetesInformerOptions): InformerSettings {
  const minWatchTimeoutSeconds = options.minWatchTimeoutSeconds ?? 300;
  return {
    kubeConfig: options.kubeConfig,
    namespace: options.namespace,
    pageSize: options.pageSize ?? 500,
    inactivityTimeoutMs: options.inactivityTimeoutMs ?? 150_000,
    minWatchTimeoutSeconds,
    maxWatchTimeoutSeconds: Math.max(minWatchTimeoutSeconds, options.maxWatchTimeoutSeconds ?? 600),
    shortWatchMs: options.shortWatchMs ?? 1000,
    streamingList: options.streamingList ?? 'never',
    streamingListTimeoutMs: options.streamingListTimeoutMs ?? 60_000,
    streamingListSupport: options.streamingListSupport ?? new StreamingListSupport(),
    listLimiter: listLimiterOf(options.listConcurrency),
    shardSelector: options.shardSelector === '' ? undefined : options.shardSelector,
    connectionPool: resolveConnectionPool(options),
    kindAvailability: options.kindAvailability,
    serverReadiness: options.serverReadiness,
  };
}

/** How many paginated LISTs the informers of one source run at once when `listConcurrency` is unset. */
export const DEFAULT_LIST_CONCURRENCY = 16;

/** The limiter `listConcurrency` names: the one given, else a new one ({@link DEFAULT_LIST_CONCURRENCY} when unset). */
export function listLimiterOf(listConcurrency: number | ListLimiter | undefined): ListLimiter {
  if (listConcurrency instanceof ListLimiter) return listConcurrency;
  return new ListLimiter(listConcurrency ?? DEFAULT_LIST_CONCURRENCY);
}

function resolveConnectionPool(options: KubernetesInformerOptions): KubeConnectionPool | undefined {
  const mode = options.connection ?? 'shared';
  if (mode === 'per-request') return undefined;
  if (mode !== 'shared') {
    throw new TypeError(`KubernetesInformer: options.connection must be 'shared' or 'per-request', got ${JSON.stringify(mode)}`);
  }
  return options.connectionPool ?? sharedConnectionPool(options.kubeConfig);
}
