/** `metav1.StatusDetails`, as the server fills it. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: Array<{ reason?: string; message?: string; field?: string }>;
  retryAfterSeconds?: number;
}

/** `metav1.Status`: the body of every error response (and of some DELETEs). */
export interface StatusObject {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { resourceVersion?: string; continue?: string };
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  /** HTTP status; absent only in the Success status of a DELETE. */
  code: number;
}

/**
 * An API failure: thrown by the direct store methods of the in-memory API
 * server and turned into the HTTP response by its request handler.
 *
 * Easy to get wrong: `code` is the HTTP status (as client-node's
 * `ApiException.code`), and `body` is the exact `Status` the HTTP path sends.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly code: number;
  readonly body: StatusObject;
  /** Extra response headers (e.g. `Retry-After`). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(body: StatusObject, headers: Record<string, string> = {}) {
    super(body.message ?? body.reason ?? `HTTP ${body.code}`);
    this.code = body.code;
    this.body = body;
    this.headers = headers;
  }

  get reason(): string | undefined {
    return this.body.reason;
  }
}
