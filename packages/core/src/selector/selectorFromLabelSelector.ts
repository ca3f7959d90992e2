import { Everything } from './Everything.js';
import type { LabelSelector } from './LabelSelector.js';
import { Nothing } from './Nothing.js';
import { RequirementsSelector } from './RequirementsSelector.js';
import type { Requirement, Selector, SelectorOperator } from './Selector.js';
import { SelectorError } from './SelectorError.js';
import { validateLabelKey, validateLabelValue } from './validation.js';

const OPERATORS: ReadonlySet<string> = new Set<SelectorOperator>(['In', 'NotIn', 'Exists', 'DoesNotExist']);

function render(ls: unknown): string {
  try {
    return JSON.stringify(ls) ?? String(ls);
  } catch {
    return String(ls);
  }
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/**
 * Converts a `metav1.LabelSelector` into a {@link Selector}, validating it as
 * Kubernetes does: `matchLabels` entries become `key=value`; `In`/`NotIn`
 * need at least one value, `Exists`/`DoesNotExist` none; keys and values
 * must be valid. Violations, unknown operators and wrongly typed fields
 * (as arrive from untyped YAML/JSON) throw a {@link SelectorError} whose
 * `path` names the field.
 *
 * Easy to get wrong: `null`/`undefined` gives `Nothing` (matches nothing),
 * while `{}` (or only empty lists/maps) gives `Everything`.
 */
export function selectorFromLabelSelector(ls: LabelSelector | null | undefined): Selector {
  if (ls === null || ls === undefined) return Nothing;
  const fail = (path: string, problem: string): SelectorError => new SelectorError(render(ls), problem, { path });
  const raw: unknown = ls;
  if (!isRecord(raw)) throw fail('', 'must be an object with matchLabels and/or matchExpressions');

  const requirements: Requirement[] = [];
  const { matchLabels, matchExpressions } = raw;
  if (matchLabels !== undefined && matchLabels !== null) {
    if (!isRecord(matchLabels)) throw fail('matchLabels', 'must be a map of label keys to values');
    for (const [key, value] of Object.entries(matchLabels)) {
      const path = `matchLabels[${JSON.stringify(key)}]`;
      const keyProblem = validateLabelKey(key);
      if (keyProblem !== undefined) throw fail(path, `key ${JSON.stringify(key)} is invalid: ${keyProblem}`);
      if (typeof value !== 'string') throw fail(path, `value must be a string, not ${render(value)}`);
      const valueProblem = validateLabelValue(value);
      if (valueProblem !== undefined) throw fail(path, `value ${JSON.stringify(value)} is invalid: ${valueProblem}`);
      requirements.push({ key, operator: 'In', values: [value] });
    }
  }
  if (matchExpressions !== undefined && matchExpressions !== null) {
    if (!Array.isArray(matchExpressions)) throw fail('matchExpressions', 'must be a list of requirements');
    matchExpressions.forEach((expr: unknown, i) => {
      requirements.push(toRequirement(expr, `matchExpressions[${i}]`, fail));
    });
  }
  return requirements.length === 0 ? Everything : new RequirementsSelector(requirements);
}

function toRequirement(expr: unknown, path: string, fail: (path: string, problem: string) => SelectorError): Requirement {
  if (!isRecord(expr)) throw fail(path, 'must be an object with key, operator and values');
  const { key, operator, values } = expr;
  if (typeof key !== 'string') throw fail(`${path}.key`, `must be a string, not ${render(key)}`);
  const keyProblem = validateLabelKey(key);
  if (keyProblem !== undefined) throw fail(`${path}.key`, `key ${JSON.stringify(key)} is invalid: ${keyProblem}`);
  if (typeof operator !== 'string' || !OPERATORS.has(operator)) {
    throw fail(`${path}.operator`, `unknown operator ${render(operator)}; must be In, NotIn, Exists or DoesNotExist`);
  }
  const op = operator as SelectorOperator;
  const list: unknown = values ?? [];
  if (!Array.isArray(list)) throw fail(`${path}.values`, `must be a list of strings, not ${render(values)}`);
  if ((op === 'In' || op === 'NotIn') && list.length === 0) {
    throw fail(`${path}.values`, `must not be empty for operator ${op}`);
  }
  if ((op === 'Exists' || op === 'DoesNotExist') && list.length !== 0) {
    throw fail(`${path}.values`, `must be empty for operator ${op}`);
  }
  const checked = list.map((value: unknown, j): string => {
    if (typeof value !== 'string') throw fail(`${path}.values[${j}]`, `must be a string, not ${render(value)}`);
    const problem = validateLabelValue(value);
    if (problem !== undefined) throw fail(`${path}.values[${j}]`, `value ${JSON.stringify(value)} is invalid: ${problem}`);
    return value;
  });
  return { key, operator: op, values: checked };
}
