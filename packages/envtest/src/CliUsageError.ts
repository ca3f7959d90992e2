/**
 * Thrown by {@link parseCliArgs} for a command line `protean-envtest` does
 * not understand; the message names the bad argument and the valid ones.
 */
export class CliUsageError extends Error {
  override readonly name = 'CliUsageError';

  constructor(
    message: string,
    /** The argument that was not understood (`''` when the command is missing). */
    readonly argument: string,
  ) {
    super(message);
  }
}
