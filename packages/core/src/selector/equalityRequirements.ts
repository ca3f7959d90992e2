import type { Selector } from './Selector.js';

/**
 * The `key=value` requirements of a selector (single-value `In`, however it
 * was written: `a=b`, `a==b`, `a in (b)`, `matchLabels`), in canonical
 * order. An object can only match if it carries every one of these labels,
 * which makes any of them a sound bucket key for routing events.
 *
 * Easy to get wrong: the result is empty for `Everything`, for `Nothing`,
 * and for selectors with only set-based or negative requirements; such
 * selectors must be checked against every event. A key can appear twice
 * (`a=b,a=c`), in which case the selector matches nothing.
 */
export function equalityRequirements(selector: Selector): ReadonlyArray<readonly [key: string, value: string]> {
  const pairs: Array<readonly [string, string]> = [];
  for (const r of selector.requirements()) {
    if (r.operator === 'In' && r.values.length === 1) pairs.push([r.key, r.values[0] as string]);
  }
  return pairs;
}
