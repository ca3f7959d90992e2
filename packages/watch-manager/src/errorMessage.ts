/** The message of an Error, or the value as a string: for log and error texts built from `unknown` causes. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
