import {
  assertStillValid,
  createLogger,
  KubeApiError,
  noteWrite,
  tracing,
  type CachedObject,
  type GroupVersionResource,
  type Logger,
} from '@protean/core';
import { type RequestDescription, type TraceSpan, noteRead, validateObjectName } from '@protean/core/internal';
import { answerOf } from './answerOf.js';
import { ApplyConflictError } from './ApplyConflictError.js';
import { parseWarnings } from './apiWarnings.js';
import { APPLY_PATCH, operationOf, requestOf, type Call } from './clientCall.js';
import { MissingNamespaceError } from './MissingNamespaceError.js';
import type { KubeObject, ObjectKey } from './KubeObject.js';
import type { KubeHttpRequest, KubeTransport } from './KubeTransport.js';
import { startRequestSpan } from './requestSpan.js';
import { ResourceScopes } from './ResourceScopes.js';
import type { ResolvedRetryOptions } from './RetryOptions.js';
import { retryRequest } from './retryRequest.js';
import { noteUnfenced, staleRead, withPrecondition } from './writeFence.js';

/** What a {@link ClientRequests} sends with. */
export interface ClientRequestsOptions {
  readonly transport: KubeTransport;
  readonly userAgent: string;
  readonly retry: ResolvedRetryOptions;
  /** Aborted when the client closes: a request waiting to be retried stops waiting. */
  readonly closing: AbortSignal;
  readonly logger: Logger | undefined;
}

/**
 * How a `KubeClient` call becomes requests and an answer: the lease checks
 * of a write (refused once the pass's lease ended, a warning for a write
 * without a pass's signal), the precondition a pass's read gives it, the
 * namespace check, the request and its span, the attempts (retried when
 * safe, see `retryRequest`), the answer or its `KubeApiError`, and what the
 * pass learns of it (the versions it read and wrote, for read-your-writes).
 * `KubeClient` says what to ask; this sends it.
 */
export class ClientRequests {
  private readonly scopes: ResourceScopes;
  private logger: Logger | undefined;
  /** `group/resource|text` of the warnings logged already. */
  private readonly warnedOnce = new Set<string>();

  constructor(private readonly options: ClientRequestsOptions) {
    this.scopes = new ResourceScopes(options.transport, options.userAgent);
    this.logger = options.logger;
  }

  /** Sends `original` and resolves with the server's answer (see the class). */
  async send<T>(original: Call): Promise<T> {
    // Before the first await: the stack still names the handler that made the write.
    if (original.method !== 'GET') noteUnfenced(original, () => this.log());
    const fenced = withPrecondition(original);
    const call = fenced?.call ?? original;
    const built = requestOf(call, this.options.userAgent);
    const description = built.description;
    // A create's name is not part of its URL: check it as the other verbs' names are checked.
    const bodyName = call.method === 'POST' ? (call.body as KubeObject).metadata?.name : undefined;
    if (bodyName !== undefined) validateObjectName(bodyName);
    if ((call.name !== undefined || call.method === 'POST') && (call.namespace ?? '') === '') await this.checkClusterScoped(call);
    let request = built.request;
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
        const key = { namespace: call.namespace ?? '', name: call.name! };
        throw await staleRead(
          fenced,
          `${description.method} ${description.target}`,
          err,
          () => this.find<CachedObject>(call.gvr, key, call.signal),
          (current) => this.noteWritten(call.gvr, current, call.signal),
        );
      }
      throw err;
    } finally {
      span?.end();
    }
  }

  /** Reads one object, or `undefined` when it does not exist. */
  async find<T>(gvr: GroupVersionResource, key: ObjectKey, signal: AbortSignal | undefined): Promise<T | undefined> {
    try {
      return await this.send<T>({ method: 'GET', gvr, namespace: key.namespace, name: key.name, idempotent: true, signal });
    } catch (err) {
      if (err instanceof KubeApiError && err.status === 404) return undefined;
      throw err;
    }
  }

  /**
   * Tells the pass whose signal the write was made with (core's
   * `noteWrite`) which object version it wrote, so its cached reads never
   * return an older one. Dry runs store nothing and are not noted.
   */
  noteWritten(gvr: GroupVersionResource, stored: unknown, signal: AbortSignal | undefined): void {
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
      refetch: (s) => this.find<CachedObject>(gvr, key, s),
    });
  }

  /** Tells the pass whose signal the delete was made with that the object is gone (see {@link noteWritten}). */
  noteDeleted(gvr: GroupVersionResource, key: ObjectKey, uid: string | undefined, signal: AbortSignal | undefined): void {
    const namespace = key.namespace ?? '';
    noteWrite(signal, {
      gvr,
      namespace,
      name: key.name,
      deleted: true,
      uid,
      refetch: (s) => this.find<CachedObject>(gvr, { namespace, name: key.name }, s),
    });
  }

  private attempts<T>(call: Call, request: KubeHttpRequest, description: RequestDescription, span: TraceSpan | undefined): Promise<T> {
    const { transport, retry, closing } = this.options;
    return retryRequest(
      async () => {
        // A write made with a pass's ctx.signal is sent only while the lease the pass runs under is valid, checked
        // right here (each attempt): after a freeze the handler's continuation runs before the lease's timers.
        if (call.method !== 'GET') assertStillValid(call.signal, `${description.method} ${description.target}`);
        const res = await transport.send(request);
        span?.setAttribute('http.response.status_code', res.status);
        const warnings = parseWarnings(res.headers['warning']);
        if (warnings.length > 0) this.warned(call, warnings);
        return answerOf<T>(res, description, call.query?.get('fieldManager') ?? undefined, warnings);
      },
      retry,
      call.idempotent,
      call.signal === undefined ? closing : AbortSignal.any([call.signal, closing]),
    );
  }

  /** Each distinct warning of a resource, once per client, at warn level (the server says the write lost something). */
  private warned(call: Call, warnings: readonly string[]): void {
    for (const text of warnings) {
      const key = `${call.gvr.group}/${call.gvr.resource}|${text}`;
      if (this.warnedOnce.has(key)) continue;
      if (this.warnedOnce.size < 1024) this.warnedOnce.add(key);
      this.log().warn(
        { warning: text, method: call.method, gvr: call.gvr, name: call.name },
        `the API server warned about a ${call.method} of ${call.gvr.resource}${call.gvr.group === '' ? '' : `.${call.gvr.group}`}: ${text}`,
      );
    }
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
    const bodyName = (call.body as KubeObject | undefined)?.metadata?.name;
    throw new MissingNamespaceError(operationOf(call), call.gvr, call.name ?? (typeof bodyName === 'string' ? bodyName : ''), fromBody);
  }

  /** The client's logger, made on first use when none was given. */
  private log(): Logger {
    this.logger ??= createLogger({ name: 'protean-client' });
    return this.logger;
  }
}

/** The objects a GET answered with: the object, or a list's items. */
function readObjects(result: unknown): CachedObject | CachedObject[] | undefined {
  if (result === null || typeof result !== 'object') return undefined;
  const items = (result as { items?: unknown }).items;
  if (Array.isArray(items)) return items as CachedObject[];
  return typeof (result as KubeObject).metadata?.name === 'string' ? (result as CachedObject) : undefined;
}
