/**
 * A declaration that cannot become a CRD: a schema construct a structural
 * schema cannot express (a union of different types, `oneOf`, a tuple),
 * or a bad name. Names the kind, the version and the path in the schema.
 */
export class KindSchemaError extends Error {
  override readonly name = 'KindSchemaError';
  /** E.g. `WebApp v1 .spec.replicas`. */
  readonly where: string;

  constructor(where: string, problem: string) {
    super(`${where}: ${problem}`);
    this.where = where;
  }
}
