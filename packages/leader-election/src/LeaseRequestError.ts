/** Which lease call failed. */
export type LeaseVerb = 'get' | 'create' | 'update' | 'watch';

/**
 * A failed call of a {@link LeaseClient}: an HTTP error status (with the
 * `Status` reason when the server sent one), a network failure or an
 * aborted request (`status` undefined, `reason` `NetworkError` or `Aborted`).
 */
export class LeaseRequestError extends Error {
  override readonly name = 'LeaseRequestError';
  readonly verb: LeaseVerb;
  /** `namespace/name` of the lease. */
  readonly lease: string;
  readonly status: number | undefined;
  readonly reason: string | undefined;

  constructor(verb: LeaseVerb, lease: string, detail: string, fields: { status?: number; reason?: string; cause?: unknown } = {}) {
    super(`${verb} lease ${lease} failed: ${detail}`, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.verb = verb;
    this.lease = lease;
    this.status = fields.status;
    this.reason = fields.reason;
  }

  /** True for a 409: the lease exists already (create) or changed since it was read (update). */
  get conflict(): boolean {
    return this.status === 409;
  }
}
