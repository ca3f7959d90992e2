import type { Logger } from '@protean/core';
import type { KubeConfigLike } from '@protean/transport';
import type { KubeTransport } from './KubeTransport.js';
import type { RetryOptions } from './RetryOptions.js';

/** Options of a `KubeClient`: where to send requests and as whom. */
export interface KubeClientOptions {
  /** The cluster and credentials (applied again on every request). Either this or `transport`. */
  readonly kubeConfig?: KubeConfigLike;
  /** How requests are sent, instead of `kubeConfig` (a scripted transport in tests). */
  readonly transport?: KubeTransport;
  /**
   * The `fieldManager` of every write, and the default of `apply`: the name
   * `managedFields` records, e.g. `"greeting-controller"`.
   */
  readonly fieldManager?: string;
  readonly retry?: RetryOptions;
  /** Default `protean-client`. */
  readonly userAgent?: string;
  /**
   * Where the client tells of a write made without a fenced pass's
   * `ctx.signal` while this process acts under a lease (once per call
   * site, unless `NODE_ENV` is `production`). Default: a logger of its own
   * (`createLogger`), made on first use.
   */
  readonly logger?: Logger;
}

/** What every request takes. */
export interface RequestOptions {
  /** Aborts the request and its retries; pass the handler's `ctx.signal`. */
  readonly signal?: AbortSignal | undefined;
}

/** Options of a write. */
export interface WriteOptions extends RequestOptions {
  /** Overrides the client's `fieldManager` for this request. */
  readonly fieldManager?: string;
  /**
   * Server-side dry run (`dryRun=All`): the API server validates, defaults
   * and admits the write and answers with the object it would store, but
   * stores nothing. Default false.
   */
  readonly dryRun?: boolean;
  /**
   * What the API server does with fields it does not know or that appear
   * twice: `Strict` fails the write (400), `Warn` stores without them and
   * answers with a warning, `Ignore` drops them silently. Default: the
   * server's (`Warn`).
   */
  readonly fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
  /**
   * The server-enforced fence, on by default: a write made with a pass's
   * `ctx.signal` to an object the pass read (`ctx.get`, `ctx.list`, or this
   * client's `get`/`find`/`list` with the signal; or wrote before, in the
   * same pass) carries the resourceVersion read as `metadata.resourceVersion`
   * (update, merge patch, apply), so the API server refuses it with 409 when
   * the object changed since: a replica woken past its lease cannot write
   * over its successor, whatever the timing. Refused, the write rejects with
   * core's `StaleReadError` (a requeue signal: the pass runs again at once,
   * no failure counted). `false` sends the body as given. A body with its
   * own `metadata.resourceVersion`, a JSON patch, a create and a delete are
   * sent as given either way.
   */
  readonly precondition?: boolean;
}

/** A subresource a write can address; `status` is the one handlers write. */
export interface SubresourceOptions {
  /** E.g. `status`: the write then changes only that part of the object. */
  readonly subresource?: string;
}

/** Options of `KubeClient.patch`. */
export interface PatchOptions extends WriteOptions, SubresourceOptions {
  /** `merge` (RFC 7386 JSON merge patch, the default) or `json` (RFC 6902 JSON patch). */
  readonly type?: 'merge' | 'json';
}

/** Options of `KubeClient.apply`. */
export interface ApplyOptions extends WriteOptions, SubresourceOptions {
  /** Take over fields other managers own instead of failing with an `ApplyConflictError`. Default false. */
  readonly force?: boolean;
}

/** Options of `KubeClient.delete`. */
export interface DeleteOptions extends RequestOptions {
  /** Server-side dry run (`dryRun=All`): checked and admitted, nothing deleted. Default false. */
  readonly dryRun?: boolean;
  /** `Background` (the API default for most resources), `Foreground` or `Orphan`. */
  readonly propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  /** Delete only if the object still has this uid / resourceVersion (409 otherwise). */
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
}

/** Options of `KubeClient.list`. */
export interface ListOptions extends RequestOptions {
  /** Omit for a cluster-scoped resource or every namespace. */
  readonly namespace?: string;
  /** A label selector string (`app=web,tier in (api)`). */
  readonly labelSelector?: string;
  /** Page size; every page is fetched. Default 500. */
  readonly pageSize?: number;
}

/**
 * What `KubeClient.modify` does with the object it read: change it in
 * place and return nothing (or `true`) to write it back, or return `false`
 * to leave it as it is.
 */
export type Mutation<T> = (current: T) => void | boolean | Promise<void | boolean>;
