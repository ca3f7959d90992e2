import { Everything } from './Everything.js';
import { RequirementsSelector } from './RequirementsSelector.js';
import type { Requirement, Selector } from './Selector.js';
import { SelectorError } from './SelectorError.js';
import { type Token, tokenizeSelector } from './tokenizeSelector.js';
import { validateLabelKey, validateLabelValue } from './validation.js';

function describe(token: Token): string {
  return token.kind === 'end' ? 'end of input' : JSON.stringify(token.text);
}

/** Recursive-descent parser over the tokens of one selector string. */
class Parser {
  readonly #text: string;
  readonly #tokens: Token[];
  #next = 0;

  constructor(text: string) {
    this.#text = text;
    this.#tokens = tokenizeSelector(text);
  }

  parse(): Requirement[] {
    const requirements: Requirement[] = [];
    if (this.#peek().kind === 'end') return requirements;
    for (;;) {
      requirements.push(this.#requirement());
      const after = this.#take();
      if (after.kind === 'end') return requirements;
      if (after.kind !== ',') {
        throw this.#error(after, `expected "," or end of input after a requirement but found ${describe(after)}`);
      }
      // A trailing or doubled comma fails in #requirement: nothing is skipped.
    }
  }

  #requirement(): Requirement {
    let token = this.#take();
    if (token.kind === '!') {
      token = this.#take();
      if (token.kind !== 'identifier') {
        throw this.#error(token, `expected a label key after "!" but found ${describe(token)}`);
      }
      // `!a=b` fails in parse(): `!` takes no operator, as in Kubernetes.
      return { key: this.#key(token), operator: 'DoesNotExist', values: [] };
    }
    if (token.kind !== 'identifier') {
      throw this.#error(token, `expected a label key or "!" but found ${describe(token)}`);
    }
    const key = this.#key(token);
    const op = this.#peek();
    if (op.kind === ',' || op.kind === 'end') return { key, operator: 'Exists', values: [] };
    this.#take();
    switch (op.kind) {
      case '=':
      case '==':
        return { key, operator: 'In', values: [this.#exactValue(key, op)] };
      case '!=':
        return { key, operator: 'NotIn', values: [this.#exactValue(key, op)] };
      case '<':
      case '>':
        // Deliberately unsupported: Gt/Lt exist only in the string syntax, so
        // such a selector could not be written as a LabelSelector.
        throw this.#error(op, `operator "${op.text}" is not supported (supported: =, ==, !=, in, notin, key, !key)`);
      default:
        if (op.kind === 'identifier' && (op.text === 'in' || op.text === 'notin')) {
          return { key, operator: op.text === 'in' ? 'In' : 'NotIn', values: this.#valueList(key, op) };
        }
        throw this.#error(
          op,
          `expected an operator (=, ==, !=, in, notin), "," or end of input after key ${JSON.stringify(key)} but found ${describe(op)}`,
        );
    }
  }

  #key(token: Token): string {
    const problem = validateLabelKey(token.text);
    if (problem !== undefined) {
      throw this.#error(token, `key ${JSON.stringify(token.text)} is invalid: ${problem}`);
    }
    return token.text;
  }

  #value(key: string, token: Token): string {
    const problem = validateLabelValue(token.text);
    if (problem !== undefined) {
      throw this.#error(token, `value ${JSON.stringify(token.text)} of key ${JSON.stringify(key)} is invalid: ${problem}`);
    }
    return token.text;
  }

  // `a=` and `a!=` compare with the empty value, as in Kubernetes.
  #exactValue(key: string, op: Token): string {
    const token = this.#peek();
    if (token.kind === ',' || token.kind === 'end') return '';
    this.#take();
    if (token.kind !== 'identifier') {
      throw this.#error(token, `expected a value after "${op.text}" but found ${describe(token)}`);
    }
    return this.#value(key, token);
  }

  // `(a,,b)`, `(,a)` and `(a,)` hold the empty value, as in Kubernetes.
  #valueList(key: string, op: Token): string[] {
    const open = this.#take();
    if (open.kind !== '(') {
      throw this.#error(open, `expected "(" after "${op.text}" but found ${describe(open)}`);
    }
    if (this.#peek().kind === ')') {
      // Deliberately stricter than Kubernetes, which reads `()` as `("")`:
      // an empty list is far more often a mistake than a wish for the empty value.
      const exact = op.text === 'in' ? `${key}=` : `${key}!=`;
      throw this.#error(open, `empty value list "()": "${op.text}" needs at least one value (for the empty value write "${exact}")`);
    }
    const values: string[] = [];
    for (;;) {
      const item = this.#peek();
      if (item.kind === 'identifier') {
        this.#take();
        values.push(this.#value(key, item));
      } else if (item.kind === ',' || item.kind === ')') {
        values.push('');
      } else {
        throw this.#error(item, `expected a value, "," or ")" but found ${describe(item)}`);
      }
      const separator = this.#take();
      if (separator.kind === ')') return values;
      if (separator.kind !== ',') {
        throw this.#error(separator, `expected "," or ")" but found ${describe(separator)}`);
      }
    }
  }

  #peek(): Token {
    return this.#tokens[this.#next] as Token;
  }

  // Never moves past the final `end` token, so callers can take freely.
  #take(): Token {
    const token = this.#tokens[this.#next] as Token;
    if (token.kind !== 'end') this.#next++;
    return token;
  }

  #error(token: Token, problem: string): SelectorError {
    return new SelectorError(this.#text, `${problem} at position ${token.position}`, {
      position: token.position,
    });
  }
}

/**
 * Parses the Kubernetes string syntax of a label selector:
 * `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x,y)`, `a` (exists) and
 * `!a` (does not exist), joined by commas, with spaces, tabs and newlines
 * allowed between tokens. `""` (or only whitespace) is `Everything`.
 *
 * Keys and values are validated as Kubernetes validates them; malformed
 * input always throws a {@link SelectorError} naming the input and the
 * 0-based position of the offending token.
 *
 * Easy to get wrong: `a!=b` and `a notin (b)` also match objects without
 * label `a`. Deliberate differences from Kubernetes: `>`/`<` are rejected,
 * `in ()`/`notin ()` are rejected (Kubernetes reads them as the empty value),
 * and a NUL character is an invalid character rather than the end of input.
 */
export function parseSelector(text: string): Selector {
  if (typeof text !== 'string') {
    throw new SelectorError(String(text), `expected a string but got ${typeof text} at position 0`, { position: 0 });
  }
  const requirements = new Parser(text).parse();
  return requirements.length === 0 ? Everything : new RequirementsSelector(requirements);
}
