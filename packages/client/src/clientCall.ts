import type { GroupVersionResource } from '@protean/core';
import type { RequestDescription } from '@protean/core/internal';
import type { KubeObject, ObjectKey } from './KubeObject.js';
import type { KubeHttpRequest } from './KubeTransport.js';
import { objectPath } from './objectPath.js';

/** The HTTP method of a call. */
export type Verb = KubeHttpRequest['method'];

/** One call of a `KubeClient` method: what to ask the API server, before it is a request. */
export interface Call {
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

/** The content type of a server-side apply. */
export const APPLY_PATCH = 'application/apply-patch+yaml';

/** The content type of each patch type `KubeClient.patch` sends. */
export const PATCH_TYPES = { merge: 'application/merge-patch+json', json: 'application/json-patch+json' } as const;

/**
 * The HTTP request of `call` and what it is for error messages and spans
 * (`APPLY` for a server-side apply). Throws before anything is sent when a
 * part of the path breaks Kubernetes' naming rules (see `objectPath`).
 */
export function requestOf(call: Call, userAgent: string): { readonly request: KubeHttpRequest; readonly description: RequestDescription } {
  const path = objectPath(call.gvr, call.namespace, call.name, call.subresource);
  const queryText = call.query?.toString() ?? '';
  const request: KubeHttpRequest = {
    method: call.method,
    path: queryText === '' ? path : `${path}?${queryText}`,
    headers: {
      accept: 'application/json',
      'user-agent': userAgent,
      ...(call.body === undefined ? {} : { 'content-type': call.contentType ?? 'application/json' }),
    },
    ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
    signal: call.signal,
  };
  const description: RequestDescription = {
    method: call.method === 'PATCH' && call.contentType === APPLY_PATCH ? 'APPLY' : call.method,
    path: request.path,
    target:
      describeTarget(call.gvr, { namespace: call.namespace, name: call.name ?? '' }) +
      (call.subresource === undefined ? '' : `/${call.subresource}`),
    gvr: call.gvr,
    ...(call.namespace === undefined ? {} : { namespace: call.namespace }),
  };
  return { request, description };
}

/** What `call` does, as `MissingNamespaceError` names it: `get`, `create`, `apply`, ... */
export function operationOf(call: Call): 'get' | 'create' | 'update' | 'patch' | 'delete' | 'apply' {
  if (call.contentType === APPLY_PATCH) return 'apply';
  return ({ GET: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' } as const)[call.method];
}

/** `configmaps default/a`, `widgets.example.com w`, `namespaces` (a collection). */
export function describeTarget(gvr: GroupVersionResource, key: ObjectKey): string {
  const resource = gvr.group === '' ? gvr.resource : `${gvr.resource}.${gvr.group}`;
  const ns = key.namespace === undefined || key.namespace === '' ? '' : `${key.namespace}/`;
  return key.name === '' ? (ns === '' ? resource : `${resource} in ${key.namespace}`) : `${resource} ${ns}${key.name}`;
}

/** The key of `object` from its metadata; a TypeError naming `verb` when it has no name. */
export function keyOf(object: KubeObject, verb: string): ObjectKey {
  const name = object.metadata?.name;
  if (typeof name !== 'string' || name === '') throw new TypeError(`${verb} needs an object with metadata.name`);
  const namespace = object.metadata?.namespace;
  return namespace === undefined ? { name } : { namespace, name };
}

/** Throws a TypeError unless `fieldManager` is one the API server takes. */
export function checkFieldManager(fieldManager: string): void {
  // The API server's rule: at most 128 characters (and not empty: an empty one is "not set").
  if (typeof fieldManager !== 'string' || fieldManager === '' || fieldManager.length > 128) {
    throw new TypeError(`fieldManager must be a non-empty string of at most 128 characters, got ${JSON.stringify(fieldManager)}`);
  }
}
