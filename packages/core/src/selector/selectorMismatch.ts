import { formatRequirement } from './formatRequirement.js';
import type { Requirement, Selector } from './Selector.js';

/** Why a label set fails a selector: the first failing requirement, when there is one. */
export interface SelectorMismatch {
  /** The failing requirement (canonical order: the first by key); undefined for `Nothing` or a selector whose requirements do not explain its verdict. */
  readonly requirement: Requirement | undefined;
  /** One line naming the label and the requirement: `label app is "blog", selector wants app in (shop,web)`. */
  readonly reason: string;
}

const hasOwn = Object.hasOwn;

/**
 * Why `labels` do not match `selector`, or undefined when they do. The
 * verdict is the selector's own `matches`; the reason names its first
 * failing requirement in canonical order, with the label's value as the
 * object has it (`label app is "blog", selector wants app=shop`,
 * `label tier is missing, selector wants tier (label present)`,
 * `label legacy is "yes", selector wants !legacy (label absent)`).
 *
 * Easy to get wrong: it reports one requirement only, the first that fails;
 * an object may fail others too.
 */
export function selectorMismatch(selector: Selector, labels: Readonly<Record<string, string>>): SelectorMismatch | undefined {
  if (selector.matches(labels)) return undefined;
  if (selector.matchesNothing()) return { requirement: undefined, reason: 'selector matches nothing (a null label selector)' };
  for (const r of selector.requirements()) {
    if (requirementHolds(r, labels)) continue;
    const present = hasOwn(labels, r.key);
    const actual = present ? `label ${r.key} is ${JSON.stringify(labels[r.key])}` : `label ${r.key} is missing`;
    const suffix = r.operator === 'Exists' ? ' (label present)' : r.operator === 'DoesNotExist' ? ' (label absent)' : '';
    return { requirement: r, reason: `${actual}, selector wants ${formatRequirement(r)}${suffix}` };
  }
  return { requirement: undefined, reason: `labels do not match selector ${JSON.stringify(selector.toString())}` };
}

function requirementHolds(r: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const present = hasOwn(labels, r.key);
  switch (r.operator) {
    case 'In':
      return present && r.values.includes(labels[r.key]!);
    case 'NotIn':
      return !present || !r.values.includes(labels[r.key]!);
    case 'Exists':
      return present;
    case 'DoesNotExist':
      return !present;
  }
}
