import type { Clock, ObjectMeta } from '@protean/core';

/**
 * A resource type the in-memory API server serves. `resource` is the plural
 * URL segment (`configmaps`), `kind` the object kind (`ConfigMap`).
 *
 * Easy to get wrong: the optional flags default to custom-resource behaviour
 * (generation tracked, a Success `Status` returned by DELETE, updates
 * without `metadata.resourceVersion` rejected, list items carrying `kind`
 * and `apiVersion`), because that is what a resource registered by a test
 * usually stands for. Built-in kinds set them explicitly.
 */
export interface ResourceDefinition {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  /** Default `${kind}List`. */
  listKind?: string;
  /** Default `kind` lower-cased. */
  singular?: string;
  /** When true, `/status` is served and the main endpoint ignores status changes. */
  hasStatusSubresource?: boolean;
  /** Short names reported by discovery. */
  shortNames?: string[];
  /** `metadata.generation` set to 1 on create and bumped on spec changes. Default true. */
  tracksGeneration?: boolean;
  /**
   * DELETE that removes the object at once answers with the object (true) or
   * a `Status` Success (false, as for custom resources and ConfigMaps).
   * An object that finalizers keep is always returned. Default false.
   */
  deleteReturnsObject?: boolean;
  /** PUT without `metadata.resourceVersion` is accepted (true) or 422 (false). Default false. */
  allowUnconditionalUpdate?: boolean;
  /**
   * Stands for a type compiled into kube-apiserver rather than a custom
   * resource: LIST items come without `kind`/`apiVersion` (typed lists), and
   * unknown paths in its group get a JSON 404 `Status` instead of the
   * plain-text `404 page not found` of custom and unknown groups. Default false.
   */
  builtin?: boolean;
  /**
   * A custom resource's structural schema (its storage version's
   * `openAPIV3Schema`): enforced on every write as kube-apiserver does
   * (pruning, defaults, validation; see `enforceSchema`). Unset: anything goes.
   */
  schema?: Record<string, unknown>;
}

/**
 * A Kubernetes object as plain JSON. The server never hands out its own
 * copies: mutate what you get freely.
 */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: KubeObjectMeta;
  [key: string]: unknown;
}

/**
 * An object to create: `apiVersion` and `kind` may be left out (the
 * resource's are filled in), and `name` may be replaced by `generateName`.
 */
export interface NewKubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: Partial<KubeObjectMeta>;
  [key: string]: unknown;
}

/** Object metadata as the server writes it (core's `ObjectMeta` plus server-set fields). */
export type KubeObjectMeta = ObjectMeta & {
  generateName?: string;
  deletionGracePeriodSeconds?: number;
  managedFields?: ManagedFieldsEntry[];
  [key: string]: unknown;
};

/** One `metadata.managedFields` entry, as the server records a write. */
export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Update' | 'Apply';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

/** Options of {@link InMemoryApiServer.start}. */
export interface InMemoryApiServerOptions {
  /**
   * How many past events of each resource a watch (or a continue token) can
   * resume from; an older resourceVersion gets 410 Expired. Default 1000.
   */
  historyWindow?: number;
  /** Interval of BOOKMARK events on watches that allow them. Default 60000. */
  bookmarkIntervalMs?: number;
  /**
   * Register the built-in resources (`BUILTIN_RESOURCES`): namespaces,
   * configmaps, secrets (v1), events (events.k8s.io/v1), leases
   * (coordination.k8s.io/v1), customresourcedefinitions
   * (apiextensions.k8s.io/v1) and validating/mutatingwebhookconfigurations
   * (admissionregistration.k8s.io/v1, whose webhooks HTTP writes call).
   * Default true.
   */
  builtins?: boolean;
  /**
   * Reject namespaced creates whose namespace does not exist (404), as the
   * real server's NamespaceLifecycle admission does. Default false, so tests
   * need not create namespaces first.
   */
  requireNamespaces?: boolean;
  /** Time source of bookmark and watch-timeout timers. Default: real time. */
  clock?: Clock;
  /**
   * Streaming lists (`sendInitialEvents` on a watch, the WatchList feature):
   * `'enabled'` (default) serves them as kube-apiserver 1.36 does;
   * `'disabled'` answers them 422 as a kube-apiserver with the WatchList
   * feature gate off; `'ignored'` ignores `sendInitialEvents` and
   * `resourceVersionMatch` on watches and serves a plain watch, as a server
   * that does not know them might (no `k8s.io/initial-events-end` bookmark).
   */
  watchList?: WatchListMode;
  /**
   * How a write that does not ask (`?fieldValidation=` unset) treats fields
   * its custom resource's schema does not know: `'Warn'` (default, as
   * kube-apiserver) prunes them and says so in a `Warning` header;
   * `'Strict'` refuses the write with kube-apiserver's 400 "strict decoding
   * error: unknown field ...", so a test fails at the write that sent it;
   * `'Ignore'` prunes them silently.
   */
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
}

/** See {@link InMemoryApiServerOptions.watchList}. */
export type WatchListMode = 'enabled' | 'disabled' | 'ignored';

/** One entry of {@link InMemoryApiServer.requests}. */
export interface RequestRecord {
  method: string;
  path: string;
  query: URLSearchParams;
  accept: string | undefined;
  /** `Date.now()` when the request arrived. */
  at: number;
}

/** What a fault hook's `match` sees of a request. */
export interface RequestSummary {
  method: string;
  path: string;
  query: URLSearchParams;
}

/** Options of {@link ApiServerFaults.failNext}. */
export interface FailNextOptions {
  /** Sent as the `Retry-After` header and `details.retryAfterSeconds`. */
  retryAfterSeconds?: number;
  /** Only requests for which this returns true are failed (and counted). */
  match?: (req: RequestSummary) => boolean;
}

/** Fault injection hooks of an {@link InMemoryApiServer}. */
export interface ApiServerFaults {
  /** Destroys every open watch socket abruptly (the client sees a reset / premature close). */
  dropWatches(): void;
  /** Ends every open watch cleanly (the client sees a normal end of stream). */
  closeWatches(): void;
  /** The next `count` matching requests answer `status` with a Status body. */
  failNext(count: number, status: number, opts?: FailNextOptions): void;
  /** While enabled, requests are accepted but never answered and watches stop sending. */
  stall(enabled: boolean): void;
  /** Forgets all watch history: any older resourceVersion now gets 410 Expired. */
  expireAll(): void;
  /**
   * The next `count` streaming lists (watches with `sendInitialEvents=true`)
   * answer 200, then an in-stream `ERROR` 504 Timeout "Too large resource
   * version" and end: what a kube-apiserver sends when its watch cache does
   * not catch up with the requested (or, for "", the latest) resourceVersion
   * within its freshness wait. Other requests do not count.
   */
  timeOutStreamingLists(count: number): void;
}
