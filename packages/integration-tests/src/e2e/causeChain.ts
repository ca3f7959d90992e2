/**
 * `err` followed by its `cause`, the cause's cause and so on (at most
 * `maxDepth` links), for asserting what a wrapped error carries.
 */
export function causeChain(err: unknown, maxDepth = 10): unknown[] {
  const chain: unknown[] = [];
  for (let e: unknown = err; e !== undefined && e !== null && chain.length < maxDepth; e = (e as { cause?: unknown }).cause) {
    chain.push(e);
    if (typeof e !== 'object') break;
  }
  return chain;
}

/** The HTTP statuses (`status` fields) found along the cause chain of `err`. */
export function statusesInChain(err: unknown): number[] {
  return causeChain(err)
    .map((e) => (e !== null && typeof e === 'object' ? (e as { status?: unknown }).status : undefined))
    .filter((s): s is number => typeof s === 'number');
}
