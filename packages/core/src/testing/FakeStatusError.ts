/**
 * An error carrying an HTTP status, shaped like the API errors Protean
 * recognises (`status`, as `isNotFound` and the watch manager read it). Use
 * it to make a fake informer fail to sync (`new FakeStatusError(404)` is how
 * a missing CRD looks) or a handler fail with a NotFound.
 */
export class FakeStatusError extends Error {
  override readonly name = 'FakeStatusError';
  readonly status: number;

  constructor(status: number, message = defaultMessage(status)) {
    super(`${status}: ${message}`);
    this.status = status;
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
