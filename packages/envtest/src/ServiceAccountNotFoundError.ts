import { KubeApiError } from '@protean/core';
import { type StatusBody } from '@protean/core/internal';

/**
 * Thrown by {@link serviceAccountKubeConfig} when the ServiceAccount to
 * request a token for does not exist (the TokenRequest answered 404). It is
 * core's `KubeApiError` of that TokenRequest (`status` 404, `method`
 * `POST`, its `path` and `Status` body), as {@link TokenRequestError} is for
 * any other refusal.
 *
 * Easy to get wrong: without kube-controller-manager there is no `default`
 * ServiceAccount in any namespace; create the one the test runs as first
 * (for a generated project, apply its `deploy/` ServiceAccount).
 */
export class ServiceAccountNotFoundError extends KubeApiError {
  override readonly name = 'ServiceAccountNotFoundError';

  /** `details`: the TokenRequest's path and the server's `Status` body, when known. */
  constructor(
    /** The ServiceAccount's namespace. */
    readonly namespace: string,
    /** The ServiceAccount's name. */
    readonly serviceAccount: string,
    details: { readonly path?: string; readonly body?: StatusBody | undefined; readonly cause?: unknown } = {},
  ) {
    super({
      message:
        `ServiceAccount ${namespace}/${serviceAccount} does not exist: create it before requesting a token for it ` +
        '(no controller makes a default ServiceAccount on this server)',
      method: 'POST',
      path: details.path,
      status: 404,
      body: details.body,
      cause: details.cause,
    });
  }
}
