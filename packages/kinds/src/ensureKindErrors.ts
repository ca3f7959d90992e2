/** Why {@link ensureKind} could not install a kind; each reason is its own class. */
export class EnsureKindError extends Error {
  override readonly name: string = 'EnsureKindError';
  /** The CRD, `<plural>.<group>`. */
  readonly crd: string;
  constructor(crd: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.crd = crd;
  }
}

/** The API server refused the CRD (422: a schema that is not structural, a bad name, a rule that does not compile). */
export class KindRejectedError extends EnsureKindError {
  override readonly name = 'KindRejectedError';
}

/** The kind's names clash with another CRD's (condition `NamesAccepted=False`, its message quoted). */
export class KindNamesConflictError extends EnsureKindError {
  override readonly name = 'KindNamesConflictError';
}

/** The CRD was not `Established` (or its resource not served) within the bound; the conditions last seen are quoted. */
export class KindNotEstablishedError extends EnsureKindError {
  override readonly name = 'KindNotEstablishedError';
  readonly timeoutMs: number;
  constructor(crd: string, message: string, timeoutMs: number, options?: ErrorOptions) {
    super(crd, message, options);
    this.timeoutMs = timeoutMs;
  }
}
