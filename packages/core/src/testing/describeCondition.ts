const MAX_LENGTH = 200;

/**
 * A `waitFor` condition as a timeout message shows it: the expression an
 * arrow function returns (`() => done.length === 2` reads
 * `done.length === 2`), the body of a longer one on one line, or the name
 * of a named function (`isReady()`), cut at 200 characters.
 *
 * Easy to get wrong: it shows source text after the test's compiler ran
 * (SWC or tsc may drop spaces), never the values the condition read.
 */
export function describeCondition(condition: (...args: never[]) => unknown): string {
  const source = Function.prototype.toString.call(condition);
  const arrow = /^(?:async\s*)?(?:\([^)]*\)|[\w$]+)\s*=>\s*/.exec(source);
  let text: string;
  if (source.includes('[native code]')) {
    text = condition.name === '' ? 'a native function' : `${condition.name}()`;
  } else if (arrow !== null) {
    text = unwrapBody(source.slice(arrow[0].length));
  } else if (condition.name !== '' && !/^(?:async\s+)?function\s*\(/.test(source)) {
    text = `${condition.name}()`;
  } else {
    const body = /\{([\s\S]*)\}\s*$/.exec(source);
    text = body?.[1] !== undefined ? unwrapBody(`{${body[1]}}`) : source;
  }
  text = text.replace(/\s+/g, ' ').trim();
  return text.length <= MAX_LENGTH ? text : `${text.slice(0, MAX_LENGTH - 1)}…`;
}

/** `{ return x; }` as `x`; any other block as its statements; an expression as it is. */
function unwrapBody(body: string): string {
  const trimmed = body.trim();
  if (!trimmed.startsWith('{') || !trimmed.endsWith('}')) return trimmed;
  const inner = trimmed.slice(1, -1).trim();
  const single = /^return\s+([\s\S]*?);?$/.exec(inner);
  return single?.[1] !== undefined && !/;\s*\S/.test(single[1]) ? single[1] : inner;
}
