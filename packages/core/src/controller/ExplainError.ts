/** Why `DynamicController.explain` could not answer. */
export type ExplainErrorReason = 'no-informer' | 'not-cached' | 'unsupported' | 'invalid-labels';

/**
 * `DynamicController.explain` throws this when it cannot read the object's
 * labels (no informer runs for its GVR, or the object is not in its cache;
 * pass `labels` then), when a given label key or value is not one
 * Kubernetes accepts (`invalid-labels`), or when the bound watch
 * coordinator does not implement `explain`. The message names the object.
 */
export class ExplainError extends Error {
  override readonly name = 'ExplainError';
  readonly reason: ExplainErrorReason;
  /** The object asked about: `<gvr> <namespace/name>`. */
  readonly target: string;

  constructor(reason: ExplainErrorReason, target: string, problem: string) {
    super(`cannot explain the routing of ${target}: ${problem}`);
    this.reason = reason;
    this.target = target;
  }
}
