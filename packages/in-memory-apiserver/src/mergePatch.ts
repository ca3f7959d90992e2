/** True for a JSON object (not an array, not null). */
export function isJsonObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Applies a JSON merge patch (RFC 7386) to `target` and returns the result;
 * neither input is modified.
 *
 * Easy to get wrong: arrays are replaced whole, `null` deletes a key, and a
 * non-object patch replaces the whole target.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = isJsonObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete out[key];
    } else {
      out[key] = mergePatch(out[key], value);
    }
  }
  return out;
}
