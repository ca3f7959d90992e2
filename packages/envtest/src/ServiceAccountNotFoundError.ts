/**
 * Thrown by {@link serviceAccountKubeConfig} when the ServiceAccount to
 * request a token for does not exist (the TokenRequest answered 404).
 *
 * Easy to get wrong: without kube-controller-manager there is no `default`
 * ServiceAccount in any namespace; create the one the test runs as first
 * (for a generated project, apply its `deploy/` ServiceAccount).
 */
export class ServiceAccountNotFoundError extends Error {
  override readonly name = 'ServiceAccountNotFoundError';

  constructor(
    /** The ServiceAccount's namespace. */
    readonly namespace: string,
    /** The ServiceAccount's name. */
    readonly serviceAccount: string,
    options?: { cause?: unknown },
  ) {
    super(
      `ServiceAccount ${namespace}/${serviceAccount} does not exist: create it before requesting a token for it ` +
        '(no controller makes a default ServiceAccount on this server)',
      options,
    );
  }
}
