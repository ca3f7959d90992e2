/** Why a KubeConfig could not be loaded or used. */
export type KubeConfigFailure =
  /** No KubeConfig anywhere the loader looked (`KUBECONFIG`, `~/.kube/config`, in-cluster). */
  | 'NotFound'
  /** A file could not be read. */
  | 'ReadFailed'
  /** Not YAML/JSON, or a field has the wrong type or a value no client accepts. */
  | 'Invalid'
  /** No current context, or it names a context, cluster or user that is not there. */
  | 'NoContext'
  /** Something this reader does not do (an `auth-provider`, a `proxy-url`): the message says what to use instead. */
  | 'Unsupported';

/**
 * A KubeConfig that could not be loaded or used: `reason` says why,
 * `source` names the file (or `KUBECONFIG`, `in-cluster`, `string`), and
 * `cause` is the underlying error when there is one.
 */
export class KubeConfigError extends Error {
  override readonly name = 'KubeConfigError';

  constructor(
    readonly reason: KubeConfigFailure,
    readonly source: string,
    detail: string,
    cause?: unknown,
  ) {
    super(`${source}: ${detail}`, cause === undefined ? undefined : { cause });
  }
}
