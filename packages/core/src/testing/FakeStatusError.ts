import { KubeApiError } from '../KubeApiError.js';

/**
 * An API error status, as a test makes one: core's `KubeApiError` with
 * `status` (what `isNotFound`, `apiStatusOf` and the watch manager read)
 * and, for a NotFound of one object, the `Status` body naming it. Use it
 * to make a fake informer fail to sync (`new FakeStatusError(404)` is how
 * a missing CRD looks) or a handler fail with a NotFound.
 *
 * Easy to get wrong: it names no request (`method` is `GET`, `path` is
 * empty), and a 404 without `object` carries no `KindNotServedError`
 * cause, unlike the client's error of a resource that is not served.
 */
export class FakeStatusError extends KubeApiError {
  override readonly name = 'FakeStatusError';
  override readonly status: number;
  /** A `Status` body naming the object the answer is about, when `object` was given. */
  override readonly body: { readonly details: { readonly name: string } } | undefined;

  /** `object`: the name a NotFound names (`Status.details.name`), as the server sends it for a missing object. */
  constructor(status: number, message = defaultMessage(status), object?: string) {
    const body = object === undefined ? undefined : { details: { name: object } };
    super({ message: `${status}: ${message}`, method: 'GET', status, serverMessage: message, body });
    this.status = status;
    this.body = body;
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
