import { countApiWarnings } from '@protean/core/internal';

/**
 * The `Warning` headers of API server answers (RFC 7234 form, as
 * kube-apiserver sends them: `299 - "unknown field \"spec.x\""`): parsed,
 * kept with the object they came with, counted, and logged once per
 * distinct text and resource.
 */

/** The texts of every warning in a `Warning` header value (several headers arrive joined with `, `). */
export function parseWarnings(header: string | undefined): string[] {
  if (header === undefined || header === '') return [];
  const out: string[] = [];
  // code SP agent SP quoted-text [SP quoted-date]; the text may hold commas and escaped quotes.
  for (const m of header.matchAll(/(\d{3})\s+(\S+)\s+"((?:[^"\\]|\\.)*)"(?:\s+"[^"]*")?/g)) {
    out.push(m[3]!.replace(/\\(.)/g, '$1'));
  }
  return out;
}

const byObject = new WeakMap<object, readonly string[]>();

/**
 * The warnings the API server sent with `answer` (an object `KubeClient`
 * resolved with, or a `KubeApiError`): `[]` when none. E.g. the fields a
 * write named that the server pruned (`unknown field "status.secretName"`),
 * or a deprecated API version.
 */
export function warningsOf(answer: unknown): readonly string[] {
  return answer !== null && typeof answer === 'object' ? (byObject.get(answer) ?? []) : [];
}

/** Records `warnings` as `answer`'s and counts them. */
export function keepWarnings(answer: unknown, warnings: readonly string[]): void {
  if (warnings.length === 0 || answer === null || typeof answer !== 'object') return;
  byObject.set(answer, warnings);
  countApiWarnings(warnings.length);
}
