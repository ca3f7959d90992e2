import { type KubeConfigLike, sharedConnectionPool, type KubeHttpRequest } from '@protean/transport';
import type { KubeApiError } from '@protean/core';
import type { ApiErrorResponse } from '@protean/core/internal';

const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** A 2xx answer's status and parsed JSON body (`undefined` when the body is not JSON). */
export interface JsonAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** The error a request rejects with when the server answers an error status: core's `KubeApiError` or a subclass. */
export type ErrorOfResponse = (res: ApiErrorResponse) => KubeApiError;

/** One GET of `path` (with its query) on the KubeConfig's current cluster, with its credentials (see {@link kubeJson}). */
export function kubeGetJson(kubeConfig: KubeConfigLike, path: string, signal: AbortSignal, errorOf: ErrorOfResponse): Promise<JsonAnswer> {
  return kubeJson(kubeConfig, 'GET', path, undefined, signal, errorOf);
}

/**
 * One request with an optional JSON body on the KubeConfig's current
 * cluster, with its credentials, over the KubeConfig's shared
 * `@protean/transport` connection (the one its informers and leases use).
 * Resolves with a 2xx answer; rejects with `errorOf`'s `KubeApiError` when
 * the server answered an error status, and with a `KubeTransportError`
 * when no response arrived.
 */
export async function kubeJson(
  kubeConfig: KubeConfigLike,
  method: KubeHttpRequest['method'],
  path: string,
  body: unknown,
  signal: AbortSignal,
  errorOf: ErrorOfResponse,
): Promise<JsonAnswer> {
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'protean-sharding' };
  const payload = body === undefined ? undefined : JSON.stringify(body);
  if (payload !== undefined) headers['content-type'] = 'application/json';
  const res = await sharedConnectionPool(kubeConfig).send({
    method,
    path,
    headers,
    signal,
    ...(payload === undefined ? {} : { body: payload }),
  });
  if (res.status < 200 || res.status >= 300) throw errorOf(res);
  let parsed: unknown;
  try {
    parsed = Buffer.byteLength(res.body) > MAX_BODY_BYTES ? undefined : JSON.parse(res.body);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed };
}
