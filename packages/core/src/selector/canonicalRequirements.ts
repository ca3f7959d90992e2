import type { Requirement, SelectorOperator } from './Selector.js';

const OPERATOR_ORDER: Readonly<Record<SelectorOperator, number>> = {
  In: 0,
  NotIn: 1,
  Exists: 2,
  DoesNotExist: 3,
};

// Plain `<` compares UTF-16 code units, which for the ASCII-only keys and
// values that pass validation is the byte order Kubernetes sorts by.
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// Canonical order of requirements: by key, then operator, then values.
function compareRequirements(a: Requirement, b: Requirement): number {
  const byKey = compareStrings(a.key, b.key);
  if (byKey !== 0) return byKey;
  const byOperator = OPERATOR_ORDER[a.operator] - OPERATOR_ORDER[b.operator];
  if (byOperator !== 0) return byOperator;
  const n = Math.min(a.values.length, b.values.length);
  for (let i = 0; i < n; i++) {
    const byValue = compareStrings(a.values[i] as string, b.values[i] as string);
    if (byValue !== 0) return byValue;
  }
  return a.values.length - b.values.length;
}

/**
 * Puts already validated requirements in canonical form: values sorted and
 * deduplicated, requirements sorted by key, then operator (`In`, `NotIn`, `Exists`,
 * `DoesNotExist`), then values, exact
 * duplicates dropped, everything frozen.
 *
 * Easy to get wrong: it does not validate; only requirements that passed
 * `validateLabelKey`/`validateLabelValue` and the operator/value-count rules
 * may come in. Requirements that are merely equivalent (`a!=b,a!=c` and
 * `a notin (b,c)`) are kept as written.
 */
export function canonicalRequirements(requirements: readonly Requirement[]): readonly Requirement[] {
  const normalized = requirements.map((r): Requirement =>
    Object.freeze({
      key: r.key,
      operator: r.operator,
      values: Object.freeze([...new Set(r.values)].sort(compareStrings)),
    }),
  );
  normalized.sort(compareRequirements);
  const unique = normalized.filter((r, i) => i === 0 || compareRequirements(normalized[i - 1] as Requirement, r) !== 0);
  return Object.freeze(unique);
}
