/**
 * An instance's spec has a field of the wrong type or range. The handler
 * reports it in the `Ready` condition and does not retry: only a spec
 * change (a new generation) can fix it.
 */
export class InvalidSpecError extends Error {
  override readonly name = 'InvalidSpecError';
  /** The offending field, e.g. `spec.replicas`. */
  readonly field: string;

  constructor(instance: string, field: string, problem: string) {
    super(`invalid ${field} of ${instance}: ${problem}`);
    this.field = field;
  }
}
