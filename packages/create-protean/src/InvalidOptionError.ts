/**
 * An option of `create-protean` (a flag, a prompt answer or a
 * `generateProject` field) whose value cannot be used; the message names the
 * option, the value and what it must be.
 */
export class InvalidOptionError extends Error {
  override readonly name: string = 'InvalidOptionError';
  constructor(
    /** The option as a flag name without dashes, e.g. `group`. */
    readonly option: string,
    readonly value: string,
    requirement: string,
  ) {
    super(`invalid --${option} ${JSON.stringify(value)}: ${requirement}`);
  }
}
