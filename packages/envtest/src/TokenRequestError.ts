import { KubeApiError } from '@protean/core';
import { type StatusBody } from '@protean/core/internal';

/**
 * Thrown by {@link serviceAccountKubeConfig} when the TokenRequest API
 * refuses a token for any reason other than a missing ServiceAccount: the
 * message names the ServiceAccount, the HTTP status and the server's message
 * (for example a 422 for an `expirationSeconds` below the minimum of 600).
 * It is core's `KubeApiError` of the TokenRequest (`method` `POST`, the
 * `Status` body as `body` when the server sent one), so
 * `instanceof KubeApiError`, `apiStatusOf` and `summarizeError` read it as
 * any API error.
 *
 * Easy to get wrong: an answer of 201 without a token is refused too; its
 * `status` is then 201.
 */
export class TokenRequestError extends KubeApiError {
  override readonly name = 'TokenRequestError';

  /** `details`: the TokenRequest's path and the server's `Status` body, when known. */
  constructor(
    /** The ServiceAccount's namespace. */
    readonly namespace: string,
    /** The ServiceAccount's name. */
    readonly serviceAccount: string,
    /** The HTTP status of the TokenRequest. */
    override readonly status: number,
    serverMessage: string,
    details: { readonly path?: string; readonly body?: StatusBody | undefined } = {},
  ) {
    super({
      message: `TokenRequest for ServiceAccount ${namespace}/${serviceAccount} failed with ${status}: ${serverMessage}`,
      method: 'POST',
      path: details.path,
      status,
      serverMessage,
      body: details.body,
    });
  }
}
