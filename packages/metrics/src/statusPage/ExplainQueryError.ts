/**
 * A `/statusz/explain` request the endpoint cannot ask about: a missing or
 * malformed parameter. The message names the parameter and repeats the
 * value it got; the endpoint answers 400 with it.
 */
export class ExplainQueryError extends Error {
  override readonly name = 'ExplainQueryError';

  constructor(
    /** The query parameter at fault (`gvr`, `namespace`, `name`, `labels`). */
    readonly parameter: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
