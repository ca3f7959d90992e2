/**
 * An error carrying an HTTP status, shaped like the API errors Protean
 * recognises (`status`, as `isNotFound` and the watch manager read it). Use
 * it to make a fake informer fail to sync (`new FakeStatusError(404)` is how
 * a missing CRD looks) or a handler fail with a NotFound.
 */
export class FakeStatusError extends Error {
  override readonly name = 'FakeStatusError';
  readonly status: number;
  /** A `Status` body naming the object the answer is about, when `object` was given. */
  readonly body: { readonly details: { readonly name: string } } | undefined;

  /** `object`: the name a NotFound names (`Status.details.name`), as the server sends it for a missing object. */
  constructor(status: number, message = defaultMessage(status), object?: string) {
    super(`${status}: ${message}`);
    this.status = status;
    this.body = object === undefined ? undefined : { details: { name: object } };
  }
}

function defaultMessage(status: number): string {
  switch (status) {
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'the server could not find the requested resource';
    default:
      return 'request failed';
  }
}
