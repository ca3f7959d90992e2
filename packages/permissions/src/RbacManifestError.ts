/**
 * RBAC manifests that cannot be read: YAML that does not parse, or a Role,
 * ClusterRole or binding of the wrong shape. `where` names the document
 * (`document 3 (ClusterRole ctl), rule 2`); the message says what is wrong.
 */
export class RbacManifestError extends Error {
  override readonly name = 'RbacManifestError';

  constructor(
    /** The document (1-based), object and part at fault. */
    readonly where: string,
    problem: string,
    options?: ErrorOptions,
  ) {
    super(`RBAC manifests, ${where}: ${problem}`, options);
  }
}
