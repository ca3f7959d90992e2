import type { KubeConfigLike } from './KubeConfigLike.js';
import { applyCredentials } from './applyCredentials.js';
import { http1Request } from './http1Request.js';
import type { KubeHttpRequest } from './KubeTransport.js';
import type { KubeStreamResponse } from './KubeStreamResponse.js';

/**
 * Sends `request` over a connection of its own (HTTP/1.1, closed with the
 * response), authenticated by `kubeConfig.applyToHTTPSOptions()`: the
 * unshared path, for callers that must not share (benchmarks comparing the
 * two). A cluster with a `proxyUrl` goes through client-node's proxy agent.
 * Resolves and rejects as {@link KubeConnectionPool.request} does.
 */
export async function requestOnNewConnection(kubeConfig: KubeConfigLike, request: KubeHttpRequest): Promise<KubeStreamResponse> {
  const prepared = await applyCredentials(kubeConfig, request);
  return http1Request(prepared, request, prepared.proxied ? undefined : false);
}
