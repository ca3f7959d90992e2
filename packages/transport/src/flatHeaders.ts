/** Response headers with lower-case names and one string per name (pseudo-headers such as `:status` dropped). */
export function flatHeaders(headers: Readonly<Record<string, string | string[] | number | undefined>>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (k.startsWith(':')) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v === undefined ? undefined : String(v);
  }
  return out;
}
