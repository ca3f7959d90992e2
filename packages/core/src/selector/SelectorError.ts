/** Where in the input a {@link SelectorError} was found. */
export type SelectorErrorLocation =
  /** 0-based index (UTF-16 code units) into a string selector. */
  | { readonly position: number }
  /** Field path inside a `LabelSelector`, e.g. `matchExpressions[1].values`. */
  | { readonly path: string };

/**
 * Thrown for a malformed or invalid label selector. The message quotes the
 * input and says where it is wrong: `position` for the string syntax,
 * `path` for a `LabelSelector` object (whose `input` is its JSON rendering).
 *
 * Easy to get wrong: exactly one of `position` and `path` is set; do not
 * assume `position` is a number.
 */
export class SelectorError extends Error {
  override readonly name = 'SelectorError';
  /** The selector text, or the JSON of the `LabelSelector` object. */
  readonly input: string;
  /** 0-based index of the offending token (`input.length` for "end of input"). */
  readonly position: number | undefined;
  /** Field path of the offending part of a `LabelSelector`. */
  readonly path: string | undefined;
  /** What is wrong, without the input prefix. */
  readonly problem: string;

  constructor(input: string, problem: string, location: SelectorErrorLocation) {
    super(
      'position' in location
        ? `invalid label selector ${JSON.stringify(input)}: ${problem}`
        : `invalid LabelSelector ${input}${location.path === '' ? '' : ` at ${location.path}`}: ${problem}`,
    );
    this.input = input;
    this.problem = problem;
    this.position = 'position' in location ? location.position : undefined;
    this.path = 'path' in location ? location.path : undefined;
  }
}
