/**
 * Thrown by {@link serviceAccountKubeConfig} when the TokenRequest API
 * refuses a token for any reason other than a missing ServiceAccount: the
 * message names the ServiceAccount, the HTTP status and the server's message
 * (for example a 422 for an `expirationSeconds` below the minimum of 600).
 */
export class TokenRequestError extends Error {
  override readonly name = 'TokenRequestError';

  constructor(
    /** The ServiceAccount's namespace. */
    readonly namespace: string,
    /** The ServiceAccount's name. */
    readonly serviceAccount: string,
    /** The HTTP status of the TokenRequest. */
    readonly status: number,
    serverMessage: string,
  ) {
    super(`TokenRequest for ServiceAccount ${namespace}/${serviceAccount} failed with ${status}: ${serverMessage}`);
  }
}
