/** Why no response arrived. */
export type KubeTransportFailure = 'ConnectionRefused' | 'ConnectionReset' | 'NetworkError' | 'CredentialsError' | 'NoCluster';

/**
 * A request that got no HTTP response: the connection was refused or
 * reset, the network failed, the KubeConfig's credentials could not be
 * applied, or it names no cluster. `reason` says which; `cause` is the
 * underlying error.
 *
 * Easy to get wrong: a `ConnectionReset` may come after the server acted
 * on the request, so only idempotent requests are retried after one.
 */
export class KubeTransportError extends Error {
  override readonly name = 'KubeTransportError';
  readonly reason: KubeTransportFailure;
  readonly method: string;
  readonly path: string;

  constructor(method: string, path: string, reason: KubeTransportFailure, detail: string, cause?: unknown) {
    super(`${method} ${path}: ${reason}: ${detail}`, cause === undefined ? undefined : { cause });
    this.reason = reason;
    this.method = method;
    this.path = path;
  }
}
