/** A command line `create-protean` cannot parse: an unknown flag, or a flag without its value. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
