/** One RFC 6902 operation, as a mutating webhook answers them. */
export type JsonPatchOperation =
  { readonly op: 'add' | 'replace'; readonly path: string; readonly value: unknown } | { readonly op: 'remove'; readonly path: string };

/** An RFC 6901 reference token: `~` and `/` escaped. */
function token(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** A JSON object (not null, not a list). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Equal as JSON: members that are `undefined` are absent; prototypes (and so realms) do not matter. */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const keys = (o: Record<string, unknown>): string[] => Object.keys(o).filter((k) => o[k] !== undefined);
  const ka = keys(a);
  return ka.length === keys(b).length && ka.every((k) => b[k] !== undefined && jsonEqual(a[k], b[k]));
}

/**
 * The JSON Patch that turns `from` into `to`: objects are compared key by
 * key (a key gone is removed, a new one added, a changed one recursed into
 * or replaced); a list that differs is replaced whole, so the patch never
 * depends on how kube-apiserver orders a list it merges.
 */
export function jsonPatchBetween(from: unknown, to: unknown, path = ''): JsonPatchOperation[] {
  if (jsonEqual(from, to)) return [];
  if (!isObject(from) || !isObject(to)) return [{ op: 'replace', path, value: to }];
  const ops: JsonPatchOperation[] = [];
  // A key whose value is `undefined` is absent in JSON.
  const has = (o: Record<string, unknown>, key: string): boolean => o[key] !== undefined;
  for (const key of Object.keys(from)) {
    if (has(from, key) && !has(to, key)) ops.push({ op: 'remove', path: `${path}/${token(key)}` });
  }
  for (const [key, value] of Object.entries(to)) {
    // The same value (a handler's copy shares what it left alone): nothing to compare or name.
    if (value === undefined || from[key] === value) continue;
    const at = `${path}/${token(key)}`;
    if (!has(from, key)) ops.push({ op: 'add', path: at, value });
    else ops.push(...jsonPatchBetween(from[key], value, at));
  }
  return ops;
}
