import type { KubeConfigLike } from '@protean/transport';
import { type KubeConnectionPool, sharedConnectionPool } from '@protean/transport';
import type { KubeHttpRequest, KubeHttpResponse, KubeTransport } from './KubeTransport.js';

/**
 * The default {@link KubeTransport}: requests to the KubeConfig's current
 * cluster over a `@protean/transport` {@link KubeConnectionPool}, by
 * default the one shared by everything using this KubeConfig object
 * (`sharedConnectionPool`), so writes ride the same HTTP/2 connection as
 * the informers' lists and watches (HTTP/1.1 keep-alive where the server
 * offers no h2). Credentials are applied by
 * `kubeConfig.applyToHTTPSOptions()` on every request, so rotated tokens,
 * exec plugins, token files and client certificates are always current
 * (with `@kubernetes/client-node` 1.4 and 2.x alike); a cluster with a
 * `proxyUrl` uses client-node's agent instead.
 *
 * Easy to get wrong: {@link close} closes the pool only when this
 * transport was given one it owns (`{ pool, ownsPool: true }`); the shared
 * pool stays open for its other users (its idle connections do not hold
 * the process and close after the pool's idle timeout).
 */
export class KubeConfigTransport implements KubeTransport {
  private readonly pool: KubeConnectionPool;
  private readonly ownsPool: boolean;

  constructor(kubeConfig: KubeConfigLike, options: { readonly pool?: KubeConnectionPool; readonly ownsPool?: boolean } = {}) {
    this.pool = options.pool ?? sharedConnectionPool(kubeConfig);
    this.ownsPool = options.pool !== undefined && options.ownsPool === true;
  }

  send(request: KubeHttpRequest): Promise<KubeHttpResponse> {
    return this.pool.send(request);
  }

  /** Closes the pool's connections when this transport owns the pool (see the class note); otherwise does nothing. */
  close(): void {
    if (this.ownsPool) this.pool.close();
  }
}
