import type * as https from 'node:https';
import type { KubeConfigLike } from './KubeConfigLike.js';
import { checkClientNodeRuntime, installedClientNodeVersion } from './clientNodeRuntime.js';
import { messageOf } from './failureOf.js';
import type { KubeHttpRequest } from './KubeTransport.js';
import { KubeTransportError } from './KubeTransportError.js';

// A client-node KubeConfig passed in is where Protean meets @kubernetes/client-node. Checked when this package loads:
// client-node 2.x on Node.js < 22.19 fails while loading (inside undici), so a check at the first request would come
// too late. It reads the installed version's package.json only, and only on such a Node.js; ProteanKubeConfig never
// loads client-node.
checkClientNodeRuntime(process.versions.node, installedClientNodeVersion);

/** A request with the KubeConfig's credentials applied: where it goes and with which options. */
export interface PreparedRequest {
  readonly url: URL;
  /** `https://host:port` of the current cluster. */
  readonly origin: string;
  /** `http:` cluster (no TLS, so no ALPN and no HTTP/2). */
  readonly plain: boolean;
  /** The cluster has a `proxyUrl`: only client-node's agent can reach it. */
  readonly proxied: boolean;
  /** Method, headers (Authorization included), TLS material and client-node's agent, as `applyToHTTPSOptions` filled them. */
  readonly options: https.RequestOptions;
}

/**
 * Calls `kubeConfig.applyToHTTPSOptions()` for one request, so the token,
 * exec plugin, token file or client certificate in effect now is used, and
 * resolves the current cluster's URL. `kubeConfig` is client-node's
 * `KubeConfig` or a `ProteanKubeConfig`.
 */
export async function applyCredentials(kubeConfig: KubeConfigLike, request: KubeHttpRequest): Promise<PreparedRequest> {
  const { method, path, signal } = request;
  signal?.throwIfAborted();
  const options: https.RequestOptions = { method, headers: { ...request.headers } };
  try {
    await kubeConfig.applyToHTTPSOptions(options);
  } catch (err) {
    signal?.throwIfAborted();
    throw new KubeTransportError(method, path, 'CredentialsError', `applying the KubeConfig's credentials failed: ${messageOf(err)}`, err);
  }
  signal?.throwIfAborted();
  const cluster = kubeConfig.getCurrentCluster();
  const server = cluster?.server;
  if (server === undefined || server === '') {
    throw new KubeTransportError(method, path, 'NoCluster', 'the KubeConfig has no current cluster with a server URL');
  }
  let url: URL;
  try {
    url = new URL(server.replace(/\/+$/, '') + path);
  } catch (err) {
    throw new KubeTransportError(method, path, 'NoCluster', `the cluster's server URL ${JSON.stringify(server)} is not a URL`, err);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new KubeTransportError(
      method,
      path,
      'NoCluster',
      `the cluster's server URL ${JSON.stringify(server)} is neither http: nor https:`,
    );
  }
  return { url, origin: url.origin, plain: url.protocol === 'http:', proxied: (cluster?.proxyUrl ?? '') !== '', options };
}
