/**
 * Thrown when the test PKI cannot be made with `openssl`: either the binary
 * is missing (the message names the package to install) or a command failed
 * (the message carries the command and its stderr; `cause` the exec error).
 *
 * Easy to get wrong: `openssl` is an optional package in slim Debian/Ubuntu
 * images, so a CI image may lack it although developer machines have it.
 */
export class OpensslError extends Error {
  override readonly name = 'OpensslError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
