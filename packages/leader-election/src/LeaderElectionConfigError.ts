/**
 * A {@link LeaderElectorOptions} value that cannot work; `field` names the
 * option (`leaseName`, `renewDeadlineMs`, ...), the message says why and
 * what was given. Thrown by the `LeaderElector` constructor, before any
 * request.
 */
export class LeaderElectionConfigError extends Error {
  override readonly name = 'LeaderElectionConfigError';

  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`invalid leader election option ${field}: ${message}`);
  }
}
