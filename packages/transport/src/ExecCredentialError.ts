/**
 * An exec credential plugin could not give a credential: it did not start,
 * exited with a failure, or printed no valid `ExecCredential`. The message
 * names the command and says what went wrong (with the end of its stderr
 * and the KubeConfig's `installHint` when there is one).
 */
export class ExecCredentialError extends Error {
  override readonly name = 'ExecCredentialError';

  constructor(
    /** The plugin's command as run. */
    readonly command: string,
    detail: string,
    /** The exit code when it exited with one. */
    readonly exitCode: number | undefined,
    cause?: unknown,
  ) {
    super(`exec credential plugin ${JSON.stringify(command)}: ${detail}`, cause === undefined ? undefined : { cause });
  }
}
