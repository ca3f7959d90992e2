/** Creating a CustomResourceDefinition failed (no permission, invalid manifest, ...); `cause` is the API error. */
export class CrdError extends Error {
  override readonly name = 'CrdError';

  constructor(crdName: string, verb: string, cause: unknown) {
    super(`cannot ${verb} CustomResourceDefinition ${crdName}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}
