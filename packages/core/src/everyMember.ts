/**
 * Every member of the contract `C`, the optional ones included: required
 * members must be given, optional ones must be named too, as a function or
 * `undefined` (the wrapped object does not have it). Keys are mapped over a
 * union rather than `keyof C` directly, so no member stays optional.
 */
export type EveryMember<C> = {
  [K in Exclude<keyof C, never>]: object extends Pick<C, K> ? C[K] | undefined : C[K];
};

/**
 * A wrapper of the contract `C` from `members`, leaving out the optional
 * members given as `undefined`. A wrapper that passes a contract through
 * (a decorator that counts or times one call and forwards the rest) built
 * this way cannot silently drop a member the contract gains later: the
 * object literal no longer type-checks until the new member is forwarded
 * or named `undefined`.
 *
 * @example
 * ```ts
 * const timed = forwardEveryMember<WatchManager>({
 *   ensureWatch: async (gvr, owner) => time(() => inner.ensureWatch(gvr, owner)),
 *   releaseWatch: (gvr, owner) => inner.releaseWatch(gvr, owner),
 *   // ...every other member, and for an optional one:
 *   health: inner.health === undefined ? undefined : () => inner.health!(),
 * });
 * ```
 */
export function forwardEveryMember<C extends object>(members: EveryMember<C>): C {
  const wrapper: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(members)) if (value !== undefined) wrapper[key] = value;
  return wrapper as C;
}
