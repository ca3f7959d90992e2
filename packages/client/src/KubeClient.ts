import { KubeApiError, type GroupVersionResource } from '@protean/core';
import pRetry from 'p-retry';
import { APPLY_PATCH, checkFieldManager, describeTarget, keyOf, PATCH_TYPES, type Call } from './clientCall.js';
import { ClientRequests } from './ClientRequests.js';
import { isConflict } from './errorPredicates.js';
import type {
  ApplyOptions,
  DeleteOptions,
  KubeClientOptions,
  ListOptions,
  Mutation,
  PatchOptions,
  RequestOptions,
  SubresourceOptions,
  WriteOptions,
} from './KubeClientOptions.js';
import { KubeClientClosedError } from './KubeClientClosedError.js';
import { KubeConfigTransport } from './KubeConfigTransport.js';
import type { KubeObject, ObjectKey, Stored } from './KubeObject.js';
import type { KubeTransport } from './KubeTransport.js';
import { resolveRetryOptions, type ResolvedRetryOptions } from './RetryOptions.js';

/**
 * A Kubernetes client for handler authors: get, list, create, update,
 * patch, server-side apply and delete of any resource by GVR, each request
 * aborted by the signal you pass (the handler's `ctx.signal`, which aborts
 * at shutdown and at the reconcile timeout) and retried when that is safe:
 *
 * - 429 and any status with `Retry-After`: every request, after the wait the
 *   server asked for;
 * - 500/502/503/504, reset connections, network failures: every request but
 *   `create` and JSON patches (which might have been carried out);
 * - refused connections: every request;
 * - 409 Conflict: never blindly; {@link modify} re-reads and re-applies your
 *   change, and the finalizer helpers do the same.
 *
 * Failures are a {@link KubeApiError} (status, reason, server message), an
 * {@link ApplyConflictError} (fields and their managers), a
 * `KubeTransportError` (no response), a `LeaseExpiredError` (a write with
 * a pass's signal whose lease, a leader term or a shard member's ranges,
 * ended: refused before it is sent), or the signal's reason. Works with
 * `@kubernetes/client-node` 1.4 and 2.x: it needs only `KubeConfig`.
 *
 * Easy to get wrong: objects are plain JSON (timestamps are strings), and a
 * namespaced object needs `metadata.namespace` for `create`, `update` and
 * `apply` (a `namespace` in the key for `get`, `patch`, `delete`): without
 * it the call rejects with a {@link MissingNamespaceError} before sending
 * (discovery, asked once per group/version and only for requests without a
 * namespace, says which resources are namespaced).
 */
export class KubeClient {
  private readonly transport: KubeTransport;
  private readonly ownsTransport: boolean;
  /** Aborted by {@link close}: a request waiting to be retried stops waiting. */
  private readonly closing = new AbortController();
  private readonly fieldManager: string | undefined;
  private readonly retry: ResolvedRetryOptions;
  /** How each call is sent: checks, request, attempts, answer (see `ClientRequests`). */
  private readonly requests: ClientRequests;

  constructor(options: KubeClientOptions) {
    if (options.transport !== undefined) {
      this.transport = options.transport;
      this.ownsTransport = false;
    } else if (options.kubeConfig !== undefined) {
      this.transport = new KubeConfigTransport(options.kubeConfig);
      this.ownsTransport = true;
    } else {
      throw new TypeError('KubeClient needs a kubeConfig or a transport');
    }
    if (options.fieldManager !== undefined) checkFieldManager(options.fieldManager);
    this.fieldManager = options.fieldManager;
    this.retry = resolveRetryOptions(options.retry);
    this.requests = new ClientRequests({
      transport: this.transport,
      userAgent: options.userAgent ?? 'protean-client',
      retry: this.retry,
      closing: this.closing.signal,
      logger: options.logger,
    });
  }

  /** Reads one object; a missing one rejects with a 404 `KubeApiError` (core's `isNotFound` is true). */
  get<T extends KubeObject = KubeObject>(gvr: GroupVersionResource, key: ObjectKey, options: RequestOptions = {}): Promise<Stored<T>> {
    return this.send<Stored<T>>({ method: 'GET', gvr, namespace: key.namespace, name: key.name, idempotent: true, signal: options.signal });
  }

  /** Reads one object, or `undefined` when it does not exist. */
  async find<T extends KubeObject = KubeObject>(
    gvr: GroupVersionResource,
    key: ObjectKey,
    options: RequestOptions = {},
  ): Promise<Stored<T> | undefined> {
    return this.requests.find<Stored<T>>(gvr, key, options.signal);
  }

  /** Lists every object (all pages), in one namespace or all. */
  async list<T extends KubeObject = KubeObject>(gvr: GroupVersionResource, options: ListOptions = {}): Promise<Stored<T>[]> {
    const items: Stored<T>[] = [];
    let continueToken: string | undefined;
    do {
      const query = new URLSearchParams({ limit: String(options.pageSize ?? 500) });
      if (options.labelSelector !== undefined && options.labelSelector !== '') query.set('labelSelector', options.labelSelector);
      if (continueToken !== undefined) query.set('continue', continueToken);
      const page = await this.send<{ items?: Stored<T>[]; metadata?: { continue?: string } }>({
        method: 'GET',
        gvr,
        namespace: options.namespace,
        name: undefined,
        query,
        idempotent: true,
        signal: options.signal,
      });
      items.push(...(page.items ?? []));
      continueToken = page.metadata?.continue === '' ? undefined : page.metadata?.continue;
    } while (continueToken !== undefined);
    return items;
  }

  /** Creates `object` (namespace from its metadata); an existing one rejects with 409 AlreadyExists. */
  create<T extends KubeObject>(gvr: GroupVersionResource, object: T, options: WriteOptions = {}): Promise<Stored<T>> {
    return this.send<Stored<T>>({
      method: 'POST',
      gvr,
      namespace: object.metadata?.namespace,
      name: undefined,
      query: this.writeQuery(options),
      body: object,
      idempotent: false,
      signal: options.signal,
    });
  }

  /**
   * Replaces `object` (PUT). With `metadata.resourceVersion` set, a stale
   * object rejects with 409 Conflict; see {@link modify} to retry that.
   */
  update<T extends KubeObject>(gvr: GroupVersionResource, object: T, options: WriteOptions & SubresourceOptions = {}): Promise<Stored<T>> {
    const key = keyOf(object, 'update');
    return this.send<Stored<T>>({
      method: 'PUT',
      gvr,
      namespace: key.namespace,
      name: key.name,
      subresource: options.subresource,
      query: this.writeQuery(options),
      body: object,
      idempotent: true,
      signal: options.signal,
      precondition: options.precondition,
    });
  }

  /** Patches an object: a JSON merge patch (default) or a JSON patch (`type: 'json'`, an array of operations). */
  patch<T extends KubeObject = KubeObject>(
    gvr: GroupVersionResource,
    key: ObjectKey,
    patch: unknown,
    options: PatchOptions = {},
  ): Promise<Stored<T>> {
    const type = options.type ?? 'merge';
    return this.send<Stored<T>>({
      method: 'PATCH',
      gvr,
      namespace: key.namespace,
      name: key.name,
      subresource: options.subresource,
      query: this.writeQuery(options),
      body: patch,
      contentType: PATCH_TYPES[type],
      idempotent: type === 'merge',
      signal: options.signal,
      precondition: options.precondition,
    });
  }

  /** Merge-patches the `status` subresource: only `status` changes, and `metadata.generation` does not. */
  patchStatus<T extends KubeObject = KubeObject>(
    gvr: GroupVersionResource,
    key: ObjectKey,
    status: unknown,
    options: WriteOptions = {},
  ): Promise<Stored<T>> {
    return this.patch<T>(gvr, key, { status }, { ...options, subresource: 'status' });
  }

  /**
   * Server-side apply: sends `object` as the complete intent of the field
   * manager (`options.fieldManager`, else the client's), which then owns
   * exactly the fields it sets. Creates the object when missing. Fields it
   * set before and leaves out now are removed (unless another manager owns
   * them too). A field another manager owns with a different value rejects
   * with an {@link ApplyConflictError}, unless `force: true`.
   *
   * Easy to get wrong: send only the fields you mean to own, with
   * `apiVersion`, `kind`, `metadata.name` (and `metadata.namespace`), not
   * an object read from the server: that would claim every field in it.
   */
  apply<T extends KubeObject>(gvr: GroupVersionResource, object: T, options: ApplyOptions = {}): Promise<Stored<T>> {
    const key = keyOf(object, 'apply');
    const fieldManager = options.fieldManager ?? this.fieldManager;
    if (fieldManager === undefined) {
      throw new TypeError(`apply of ${describeTarget(gvr, key)} needs a fieldManager: set it on the KubeClient or in the apply options`);
    }
    checkFieldManager(fieldManager);
    const query = new URLSearchParams({ fieldManager });
    if (options.force === true) query.set('force', 'true');
    if (options.dryRun === true) query.set('dryRun', 'All');
    if (options.fieldValidation !== undefined) query.set('fieldValidation', options.fieldValidation);
    return this.send<Stored<T>>({
      method: 'PATCH',
      gvr,
      namespace: key.namespace,
      name: key.name,
      subresource: options.subresource,
      query,
      body: object,
      contentType: APPLY_PATCH,
      idempotent: true,
      signal: options.signal,
      precondition: options.precondition,
    });
  }

  /** Server-side apply of the `status` subresource (see {@link apply}). */
  applyStatus<T extends KubeObject>(
    gvr: GroupVersionResource,
    object: T,
    options: Omit<ApplyOptions, 'subresource'> = {},
  ): Promise<Stored<T>> {
    return this.apply(gvr, object, { ...options, subresource: 'status' });
  }

  /**
   * Deletes an object. Resolves with the object when finalizers keep it
   * (it now has a `deletionTimestamp`), with `undefined` when it is gone
   * or did not exist.
   */
  async delete(gvr: GroupVersionResource, key: ObjectKey, options: DeleteOptions = {}): Promise<KubeObject | undefined> {
    const body: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1' };
    if (options.propagationPolicy !== undefined) body['propagationPolicy'] = options.propagationPolicy;
    if (options.preconditions !== undefined) body['preconditions'] = options.preconditions;
    let res: KubeObject;
    try {
      res = await this.send<KubeObject>({
        method: 'DELETE',
        gvr,
        namespace: key.namespace,
        name: key.name,
        ...(options.dryRun === true ? { query: new URLSearchParams({ dryRun: 'All' }) } : {}),
        body,
        idempotent: true,
        signal: options.signal,
      });
    } catch (err) {
      if (!(err instanceof KubeApiError && err.status === 404)) throw err;
      if (options.dryRun !== true) this.requests.noteDeleted(gvr, key, undefined, options.signal);
      return undefined;
    }
    if (res.kind !== 'Status' && res.metadata?.deletionTimestamp !== undefined) {
      // Kept by finalizers: a write like any other (deletionTimestamp set, a new resourceVersion).
      if (options.dryRun !== true) this.requests.noteWritten(gvr, res, options.signal);
      return res;
    }
    if (options.dryRun !== true) this.requests.noteDeleted(gvr, key, res.kind === 'Status' ? undefined : res.metadata?.uid, options.signal);
    return undefined;
  }

  /**
   * Read-modify-write with optimistic concurrency (client-go's
   * `RetryOnConflict` around a get and an update): reads the object, lets
   * `mutate` change it, and writes it back with its `resourceVersion`; when
   * another writer got there first (409 Conflict), reads again and calls
   * `mutate` again, up to `retry.conflictAttempts` times. Resolves with the
   * stored object (the one read, if `mutate` returned false).
   *
   * Easy to get wrong: `mutate` may run several times, each time on a fresh
   * copy; it must derive its change from the object it is given.
   */
  async modify<T extends KubeObject = KubeObject>(
    gvr: GroupVersionResource,
    key: ObjectKey,
    mutate: Mutation<T>,
    options: WriteOptions & SubresourceOptions = {},
  ): Promise<Stored<T>> {
    return this.onConflict(async () => {
      const current = await this.get<T>(gvr, key, options);
      if ((await mutate(current)) === false) return current;
      return this.update<T>(gvr, current, options);
    }, options.signal);
  }

  /**
   * Runs `attempt` again while it fails with a 409 Conflict (not an apply
   * conflict), up to `retry.conflictAttempts` times, with short jittered
   * waits. For read-modify-write loops of your own.
   */
  onConflict<T>(attempt: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return pRetry(attempt, {
      retries: this.retry.conflictAttempts - 1,
      minTimeout: 10,
      maxTimeout: 200,
      factor: 2,
      randomize: true,
      signal,
      shouldRetry: ({ error }) => isConflict(error),
    });
  }

  /**
   * Frees the kept-alive connections of the transport this client built (not of one it was given), and ends
   * the retries of requests still in flight: one waiting for its next attempt rejects with
   * {@link KubeClientClosedError} instead of keeping the process alive through its backoff.
   */
  close(): void {
    this.closing.abort(new KubeClientClosedError());
    if (this.ownsTransport) (this.transport as KubeConfigTransport).close();
  }

  private writeQuery(options: WriteOptions): URLSearchParams {
    const query = new URLSearchParams();
    const fieldManager = options.fieldManager ?? this.fieldManager;
    if (fieldManager !== undefined) {
      checkFieldManager(fieldManager);
      query.set('fieldManager', fieldManager);
    }
    if (options.dryRun === true) query.set('dryRun', 'All');
    if (options.fieldValidation !== undefined) query.set('fieldValidation', options.fieldValidation);
    return query;
  }

  private send<T>(call: Call): Promise<T> {
    return this.requests.send<T>(call);
  }
}
