import type * as https from 'node:https';

/**
 * What Protean needs of a KubeConfig: the current cluster's server URL and
 * a way to put the current credentials on a request. Both
 * `@kubernetes/client-node`'s `KubeConfig` (1.4 and 2.x) and Protean's own
 * {@link ProteanKubeConfig} have this shape, so every Protean package
 * accepts either.
 *
 * Easy to get wrong: connections are shared per *object*
 * (`sharedConnectionPool`), so build the config once and pass the same
 * object everywhere.
 */
export interface KubeConfigLike {
  /**
   * Puts the credentials in effect now on `options`: `headers.Authorization`
   * (token, token file, exec plugin), `auth` (basic), `ca`, `cert`, `key`,
   * `servername`, `rejectUnauthorized`; client-node also sets an `agent`
   * for a cluster with a proxy. Called once per request.
   */
  applyToHTTPSOptions(options: https.RequestOptions): Promise<void>;
  /** The current context's cluster, or `null` when there is none. */
  getCurrentCluster(): KubeConfigLikeCluster | null;
}

/** The part of a cluster entry the transport reads. */
export interface KubeConfigLikeCluster {
  /** `https://host:port` (or `http:`), with an optional path prefix. */
  readonly server: string;
  /** Set when the cluster is reached through an HTTP proxy. */
  readonly proxyUrl?: string | undefined;
}
