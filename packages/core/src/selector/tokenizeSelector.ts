/** Kinds of token of the string syntax; `in`/`notin` are identifiers until the parser sees them as operators. */
export type TokenKind = 'identifier' | '(' | ')' | ',' | '!' | '=' | '==' | '!=' | '<' | '>' | 'end';

/** One token and where it starts (0-based index into the input). */
export interface Token {
  readonly kind: TokenKind;
  /** The characters of the token; "" for `end`. */
  readonly text: string;
  readonly position: number;
}

function isWhitespace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
}

function isSymbol(ch: string): boolean {
  return ch === '=' || ch === '!' || ch === '(' || ch === ')' || ch === ',' || ch === '<' || ch === '>';
}

/**
 * Splits a string selector into tokens, ending with one `end` token.
 * Whitespace is space, tab, CR and LF, as in Kubernetes; any other
 * character that is not a symbol belongs to an identifier, so bad
 * characters surface later as an invalid key or value rather than here.
 *
 * Easy to get wrong: `!=` and `==` are single tokens, so `a!=b` is not
 * `a`, `!`, `=b`. Unlike Kubernetes, a NUL character does not end the input.
 */
export function tokenizeSelector(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text.charAt(i);
    if (isWhitespace(ch)) {
      i++;
    } else if (isSymbol(ch)) {
      if ((ch === '=' || ch === '!') && text.charAt(i + 1) === '=') {
        tokens.push({ kind: ch === '=' ? '==' : '!=', text: `${ch}=`, position: i });
        i += 2;
      } else {
        tokens.push({ kind: ch as TokenKind, text: ch, position: i });
        i++;
      }
    } else {
      const start = i;
      while (i < text.length && !isWhitespace(text.charAt(i)) && !isSymbol(text.charAt(i))) i++;
      tokens.push({ kind: 'identifier', text: text.slice(start, i), position: start });
    }
  }
  tokens.push({ kind: 'end', text: '', position: text.length });
  return tokens;
}
