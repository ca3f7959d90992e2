/** How deep a `cause` chain is searched. */
const MAX_CAUSE_DEPTH = 8;

/** `err` and the Errors along its `cause` chain, outermost first (at most 8). */
export function* errorCauses(err: unknown): Generator<Error> {
  let e: unknown = err;
  for (let depth = 0; e instanceof Error && depth < MAX_CAUSE_DEPTH; depth++) {
    yield e;
    e = e.cause;
  }
}

/** The first error along `err`'s `cause` chain (itself included) that is a `type`, if any. */
export function causeOfType<T extends Error>(err: unknown, type: abstract new (...args: never[]) => T): T | undefined {
  for (const e of errorCauses(err)) if (e instanceof type) return e;
  return undefined;
}
