import {
  assertStillValid,
  createLogger,
  noteWrite,
  StaleReadError,
  tracing,
  type Logger,
  type CachedObject,
  type GroupVersionResource,
  type TraceSpan,
} from '@protean/core';
import { noteRead, noteUnfencedWrite, readVersionOf, validateObjectName } from '@protean/core/internal';
import pRetry from 'p-retry';
import { ApplyConflictError } from './ApplyConflictError.js';
import { keepWarnings, parseWarnings } from './apiWarnings.js';
import { isConflict } from './errorPredicates.js';
import { KubeApiError, type RequestDescription } from './KubeApiError.js';
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
import { MissingNamespaceError } from './MissingNamespaceError.js';
import type { KubeObject, ObjectKey, Stored } from './KubeObject.js';
import type { KubeHttpRequest, KubeTransport } from './KubeTransport.js';
import { objectPath } from './objectPath.js';
import { startRequestSpan } from './requestSpan.js';
import { ResourceScopes } from './ResourceScopes.js';
import { resolveRetryOptions, type ResolvedRetryOptions } from './RetryOptions.js';
import { retryRequest } from './retryRequest.js';

type Verb = KubeHttpRequest['method'];

interface Call {
  readonly method: Verb;
  readonly gvr: GroupVersionResource;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly subresource?: string | undefined;
  readonly query?: URLSearchParams;
  readonly body?: unknown;
  readonly contentType?: string;
  /** Safe to send twice: retried after a 5xx or a reset connection. */
  readonly idempotent: boolean;
  readonly signal: AbortSignal | undefined;
  /** `false`: no resourceVersion the pass read is added to the body (see `WriteOptions.precondition`). */
  readonly precondition?: boolean | undefined;
}

/** Frames of this package, passed over when naming where an unfenced write was made. */
const CLIENT_FRAMES = /[\\/](?:@protean[\\/]client|packages[\\/]client)[\\/](?:src|dist)[\\/](?![^:]*\.test\.)/;

const APPLY_PATCH = 'application/apply-patch+yaml';
const PATCH_TYPES = { merge: 'application/merge-patch+json', json: 'application/json-patch+json' } as const;

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
  private readonly userAgent: string;
  private readonly scopes: ResourceScopes;
  private logger: Logger | undefined;
  /** `group/resource|text` of the warnings logged already. */
  private readonly warnedOnce = new Set<string>();

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
    this.userAgent = options.userAgent ?? 'protean-client';
    this.logger = options.logger;
    this.scopes = new ResourceScopes(this.transport, this.userAgent);
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
    try {
      return await this.get<T>(gvr, key, options);
    } catch (err) {
      if (err instanceof KubeApiError && err.status === 404) return undefined;
      throw err;
    }
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
      throw new TypeError(`apply of ${describe(gvr, key)} needs a fieldManager: set it on the KubeClient or in the apply options`);
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
      if (options.dryRun !== true) this.noteDeleted(gvr, key, undefined, options.signal);
      return undefined;
    }
    if (res.kind !== 'Status' && res.metadata?.deletionTimestamp !== undefined) {
      // Kept by finalizers: a write like any other (deletionTimestamp set, a new resourceVersion).
      if (options.dryRun !== true) this.noteWritten(gvr, res, options.signal);
      return res;
    }
    if (options.dryRun !== true) this.noteDeleted(gvr, key, res.kind === 'Status' ? undefined : res.metadata?.uid, options.signal);
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

  /**
   * Tells the pass whose signal the write was made with (core's
   * `noteWrite`) which object version it wrote, so its cached reads never
   * return an older one. Dry runs store nothing and are not noted.
   */
  private noteWritten(gvr: GroupVersionResource, stored: unknown, signal: AbortSignal | undefined): void {
    if (signal === undefined) return;
    const meta = (stored as KubeObject | undefined)?.metadata;
    const name = meta?.name;
    if (typeof name !== 'string' || (stored as KubeObject).kind === 'Status') return;
    const namespace = meta?.namespace ?? '';
    const key = { namespace, name };
    noteWrite(signal, {
      gvr,
      namespace,
      name,
      resourceVersion: meta?.resourceVersion,
      uid: meta?.uid,
      refetch: (s) => this.find<CachedObject>(gvr, key, { signal: s }),
    });
  }

  private noteDeleted(gvr: GroupVersionResource, key: ObjectKey, uid: string | undefined, signal: AbortSignal | undefined): void {
    const namespace = key.namespace ?? '';
    noteWrite(signal, {
      gvr,
      namespace,
      name: key.name,
      deleted: true,
      uid,
      refetch: (s) => this.find<CachedObject>(gvr, { namespace, name: key.name }, { signal: s }),
    });
  }

  private async send<T>(original: Call): Promise<T> {
    // Before the first await: the stack still names the handler that made the write.
    if (original.method !== 'GET') this.checkFenced(original);
    const fenced = this.withPrecondition(original);
    const call = fenced?.call ?? original;
    const path = objectPath(call.gvr, call.namespace, call.name, call.subresource);
    // A create's name is not part of its URL: check it as the other verbs' names are checked.
    const bodyName = call.method === 'POST' ? (call.body as KubeObject).metadata?.name : undefined;
    if (bodyName !== undefined) validateObjectName(bodyName);
    if ((call.name !== undefined || call.method === 'POST') && (call.namespace ?? '') === '') await this.checkClusterScoped(call);
    const queryText = call.query?.toString() ?? '';
    let request: KubeHttpRequest = {
      method: call.method,
      path: queryText === '' ? path : `${path}?${queryText}`,
      headers: {
        accept: 'application/json',
        'user-agent': this.userAgent,
        ...(call.body === undefined ? {} : { 'content-type': call.contentType ?? 'application/json' }),
      },
      ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
      signal: call.signal,
    };
    const description: RequestDescription = {
      method: call.method === 'PATCH' && call.contentType === APPLY_PATCH ? 'APPLY' : call.method,
      path: request.path,
      target:
        describe(call.gvr, { namespace: call.namespace, name: call.name ?? '' }) +
        (call.subresource === undefined ? '' : `/${call.subresource}`),
      gvr: call.gvr,
      ...(call.namespace === undefined ? {} : { namespace: call.namespace }),
    };
    if (call.method !== 'GET') {
      // Checked again by the transport right before the stream opens: a freeze during credentials or connecting
      // would otherwise send the write on waking.
      const action = `${description.method} ${description.target}`;
      request = { ...request, beforeSend: () => assertStillValid(call.signal, action) };
    }
    const headers = { ...request.headers };
    const span = startRequestSpan(description, call.gvr, call.signal, headers);
    if (span !== undefined) request = { ...request, headers };
    try {
      const result = await this.attempts<T>(call, request, description, span);
      // A delete's answer is the object before it went (or a Status): `delete` notes it. Dry runs store nothing.
      if (call.method !== 'GET' && call.method !== 'DELETE' && call.query?.has('dryRun') !== true) {
        this.noteWritten(call.gvr, result, call.signal);
        // The pass now knows the version it wrote: a second write of the object in the pass is fenced by that one.
        noteRead(call.signal, call.gvr, result as CachedObject);
      } else if (call.method === 'GET') noteRead(call.signal, call.gvr, readObjects(result));
      return result;
    } catch (err) {
      tracing.fail(span, err);
      if (fenced !== undefined && err instanceof KubeApiError && err.status === 409 && !(err instanceof ApplyConflictError)) {
        throw await this.staleRead(call, fenced.version, `${description.method} ${description.target}`, err);
      }
      throw err;
    } finally {
      span?.end();
    }
  }

  /**
   * The write with the resourceVersion its pass read of the object as a
   * precondition (see `WriteOptions.precondition`); undefined when none
   * applies: not an update, merge patch or apply, no pass signal, the pass
   * did not read the object, or the body names a version of its own.
   */
  private withPrecondition(call: Call): { readonly call: Call; readonly version: string } | undefined {
    if (call.precondition === false || call.signal === undefined || call.name === undefined) return undefined;
    if (call.method !== 'PUT' && !(call.method === 'PATCH' && call.contentType !== PATCH_TYPES.json)) return undefined;
    const body = call.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
    const meta = (body as KubeObject).metadata;
    if (meta?.resourceVersion !== undefined && meta.resourceVersion !== '') return undefined;
    const version = readVersionOf(call.signal, call.gvr, call.namespace ?? '', call.name);
    if (version === undefined) return undefined;
    return { call: { ...call, body: { ...body, metadata: { ...meta, resourceVersion: version } } }, version };
  }

  /**
   * A fenced write was refused: the object changed after the pass read it.
   * Its current version is noted as a write of the pass, so the pass that
   * runs next reads at least that version (from the cache once it caught up,
   * else from the server), then the refusal is a {@link StaleReadError}.
   */
  private async staleRead(call: Call, version: string, action: string, err: KubeApiError): Promise<StaleReadError> {
    const namespace = call.namespace ?? '';
    const name = call.name!;
    if (call.signal?.aborted !== true) {
      const current = await this.find<CachedObject>(call.gvr, { namespace, name }, { signal: call.signal }).catch(() => undefined);
      if (current !== undefined) this.noteWritten(call.gvr, current, call.signal);
    }
    return new StaleReadError(action, call.gvr, namespace, name, version, err);
  }

  /**
   * Counts a write made while this process acts under a lease without a
   * fenced pass's signal (core's `noteUnfencedWrite`), and tells of it once
   * per call site outside production.
   */
  private checkFenced(call: Call): void {
    const unfenced = noteUnfencedWrite(call.signal, CLIENT_FRAMES);
    if (unfenced === undefined || !unfenced.first || process.env['NODE_ENV'] === 'production') return;
    this.logger ??= createLogger({ name: 'protean-client' });
    this.logger.warn(
      { site: unfenced.site, leases: unfenced.leases, method: call.method, gvr: call.gvr, name: call.name },
      `a write sent without a pass's ctx.signal while this process acts under a lease (${unfenced.leases}): it is not refused ` +
        "once the lease has ended. Pass { signal: ctx.signal }, or call assertStillValid(ctx, 'what') before a write of your own client; " +
        `at ${unfenced.site}`,
    );
  }

  /** Each distinct warning of a resource, once per client, at warn level (the server says the write lost something). */
  private warned(call: Call, warnings: readonly string[]): void {
    for (const text of warnings) {
      const key = `${call.gvr.group}/${call.gvr.resource}|${text}`;
      if (this.warnedOnce.has(key)) continue;
      if (this.warnedOnce.size < 1024) this.warnedOnce.add(key);
      this.logger ??= createLogger({ name: 'protean-client' });
      this.logger.warn(
        { warning: text, method: call.method, gvr: call.gvr, name: call.name },
        `the API server warned about a ${call.method} of ${call.gvr.resource}${call.gvr.group === '' ? '' : `.${call.gvr.group}`}: ${text}`,
      );
    }
  }

  private attempts<T>(call: Call, request: KubeHttpRequest, description: RequestDescription, span: TraceSpan | undefined): Promise<T> {
    return retryRequest(
      async () => {
        // A write made with a pass's ctx.signal is sent only while the lease the pass runs under is valid, checked
        // right here (each attempt): after a freeze the handler's continuation runs before the lease's timers.
        if (call.method !== 'GET') assertStillValid(call.signal, `${description.method} ${description.target}`);
        const res = await this.transport.send(request);
        span?.setAttribute('http.response.status_code', res.status);
        const warnings = parseWarnings(res.headers['warning']);
        if (warnings.length > 0) this.warned(call, warnings);
        if (res.status >= 200 && res.status < 300) {
          const answer = (res.body.trim() === '' ? {} : JSON.parse(res.body)) as T;
          keepWarnings(answer, warnings);
          return answer;
        }
        const error = KubeApiError.fromResponse(description, res);
        const refused = ApplyConflictError.isApplyConflict(res.status, error.body)
          ? new ApplyConflictError(description, error.body, call.query?.get('fieldManager') ?? '')
          : error;
        keepWarnings(refused, warnings);
        throw refused;
      },
      this.retry,
      call.idempotent,
      call.signal === undefined ? this.closing.signal : AbortSignal.any([call.signal, this.closing.signal]),
    );
  }

  /**
   * A request for one object without a namespace is meant for a
   * cluster-scoped resource; for a namespaced one it would go to the
   * cluster-wide URL and meet a 404 that never mentions the namespace, so
   * it is refused here (discovery says which resources are namespaced).
   */
  private async checkClusterScoped(call: Call): Promise<void> {
    if ((await this.scopes.namespaced(call.gvr, call.signal)) !== true) return;
    const fromBody = call.method === 'POST' || call.method === 'PUT' || call.contentType === APPLY_PATCH;
    const operation =
      call.contentType === APPLY_PATCH
        ? 'apply'
        : ({ GET: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' } as const)[call.method];
    const bodyName = (call.body as KubeObject | undefined)?.metadata?.name;
    throw new MissingNamespaceError(operation, call.gvr, call.name ?? (typeof bodyName === 'string' ? bodyName : ''), fromBody);
  }
}

/** `configmaps default/a`, `widgets.example.com w`, `namespaces` (a collection). */
function describe(gvr: GroupVersionResource, key: ObjectKey): string {
  const resource = gvr.group === '' ? gvr.resource : `${gvr.resource}.${gvr.group}`;
  const ns = key.namespace === undefined || key.namespace === '' ? '' : `${key.namespace}/`;
  return key.name === '' ? (ns === '' ? resource : `${resource} in ${key.namespace}`) : `${resource} ${ns}${key.name}`;
}

function keyOf(object: KubeObject, verb: string): ObjectKey {
  const name = object.metadata?.name;
  if (typeof name !== 'string' || name === '') throw new TypeError(`${verb} needs an object with metadata.name`);
  const namespace = object.metadata?.namespace;
  return namespace === undefined ? { name } : { namespace, name };
}

function checkFieldManager(fieldManager: string): void {
  // The API server's rule: at most 128 characters (and not empty: an empty one is "not set").
  if (typeof fieldManager !== 'string' || fieldManager === '' || fieldManager.length > 128) {
    throw new TypeError(`fieldManager must be a non-empty string of at most 128 characters, got ${JSON.stringify(fieldManager)}`);
  }
}

/** The objects a GET answered with: the object, or a list's items. */
function readObjects(result: unknown): CachedObject | CachedObject[] | undefined {
  if (result === null || typeof result !== 'object') return undefined;
  const items = (result as { items?: unknown }).items;
  if (Array.isArray(items)) return items as CachedObject[];
  return typeof (result as KubeObject).metadata?.name === 'string' ? (result as CachedObject) : undefined;
}
