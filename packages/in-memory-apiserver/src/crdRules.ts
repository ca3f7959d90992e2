import { celEnv, isCelError, parse, plan, type CelInput } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { deepEqual } from './deepEqual.js';
import { isJsonObject } from './mergePatch.js';
import type { FieldCause } from './statusErrors.js';

/** A node of a CRD's structural schema. */
type Schema = Record<string, unknown>;

/** `x-kubernetes-validations[i]`: a CEL rule on the value at its schema node. */
interface ValidationRule {
  readonly rule: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly reason?: string;
  readonly fieldPath?: string;
}

type Evaluate = (bindings: Record<string, CelInput>) => unknown;

interface CompiledRule extends ValidationRule {
  readonly check: Evaluate;
  readonly messageOf?: Evaluate;
  /** A transition rule: evaluated only on an update where the old value can be told (kube-apiserver's correlation). */
  readonly usesOldSelf: boolean;
}

/** The CEL environment of CRD rules: the standard library and the strings extension (as kube-apiserver's). */
const ENV = celEnv({ funcs: strings });

const compiled = new WeakMap<Schema, readonly CompiledRule[]>();

/** No old value to compare with: a create, or a value the old object has no counterpart of. */
export const NO_OLD: unique symbol = Symbol('no old value');
type Old = unknown;

function rulesOf(schema: Schema): readonly ValidationRule[] {
  const rules = schema['x-kubernetes-validations'];
  return Array.isArray(rules) ? rules.filter((r): r is ValidationRule => isJsonObject(r) && typeof r['rule'] === 'string') : [];
}

function planOf(expression: string): Evaluate {
  const run = plan(ENV, parse(expression));
  return (bindings) => run(bindings as never);
}

function compiledRules(schema: Schema): readonly CompiledRule[] {
  let rules = compiled.get(schema);
  if (rules === undefined) {
    rules = rulesOf(schema).map((r) => ({
      ...r,
      check: planOf(r.rule),
      ...(typeof r.messageExpression === 'string' ? { messageOf: planOf(r.messageExpression) } : {}),
      usesOldSelf: /\boldSelf\b/.test(r.rule),
    }));
    compiled.set(schema, rules);
  }
  return rules;
}

/** The schema nodes under `schema`, with the path kube-apiserver names them by in a CRD's validation errors. */
function* nodes(schema: Schema, path: string): Generator<[Schema, string]> {
  yield [schema, path];
  if (isJsonObject(schema['properties'])) {
    for (const [key, child] of Object.entries(schema['properties']))
      if (isJsonObject(child)) yield* nodes(child, `${path}.properties[${key}]`);
  }
  if (isJsonObject(schema['items'])) yield* nodes(schema['items'], `${path}.items`);
  if (isJsonObject(schema['additionalProperties'])) yield* nodes(schema['additionalProperties'], `${path}.additionalProperties`);
}

const withRules = new WeakMap<Schema, boolean>();

/** Whether any node of `schema` carries CEL rules (worked out once per schema object). */
export function hasRules(schema: Schema): boolean {
  let found = withRules.get(schema);
  if (found === undefined) {
    found = false;
    for (const [node] of nodes(schema, '')) if (rulesOf(node).length > 0) found = true;
    withRules.set(schema, found);
  }
  return found;
}

/**
 * The causes for rules (and message expressions) in `schema` that do not
 * compile, as kube-apiserver refuses such a CRD: 422 naming the rule's path.
 */
export function ruleCompileCauses(schema: Schema, path: string): FieldCause[] {
  const causes: FieldCause[] = [];
  for (const [node, at] of nodes(schema, path)) {
    rulesOf(node).forEach((rule, i) => {
      for (const field of ['rule', 'messageExpression'] as const) {
        const expression = rule[field];
        if (typeof expression !== 'string') continue;
        try {
          parse(expression);
        } catch (err) {
          causes.push({
            field: `${at}.x-kubernetes-validations[${i}].${field}`,
            reason: 'FieldValueInvalid',
            message: `Invalid value: ${JSON.stringify(expression)}: compilation failed: ERROR: ${(err as Error).message}`,
          });
        }
      }
    });
  }
  return causes;
}

/** A JSON value as CEL sees it under its schema: integers as `int`, objects as maps, `number`s as `double`. */
function toCel(schema: Schema | undefined, value: unknown): CelInput {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') {
    const asInt = schema?.['type'] === 'integer' || (schema?.['type'] !== 'number' && Number.isInteger(value));
    return asInt ? BigInt(value) : value;
  }
  if (Array.isArray(value)) {
    const items = schema !== undefined && isJsonObject(schema['items']) ? schema['items'] : undefined;
    return value.map((v) => toCel(items, v));
  }
  if (isJsonObject(value)) {
    const properties = schema !== undefined && isJsonObject(schema['properties']) ? (schema['properties'] as Record<string, Schema>) : {};
    const additional = schema !== undefined && isJsonObject(schema['additionalProperties']) ? schema['additionalProperties'] : undefined;
    return new Map(Object.entries(value).map(([k, v]) => [k, toCel(properties[k] ?? additional, v)]));
  }
  return value as CelInput;
}

/** `Invalid value: X: ` as kube-apiserver prints a rule's failure: scalars shown, objects and lists not. */
function invalidValue(value: unknown): string {
  if (typeof value === 'string') return `Invalid value: ${JSON.stringify(value)}: `;
  if (typeof value === 'number' || typeof value === 'boolean') return `Invalid value: ${String(value)}: `;
  return 'Invalid value: ';
}

const REASON_PREFIX: Record<string, string> = {
  FieldValueForbidden: 'Forbidden: ',
  FieldValueRequired: 'Required value: ',
  FieldValueDuplicate: 'Duplicate value: ',
};

function celMessage(result: unknown): string {
  return isCelError(result) ? (result as Error).message : String(result);
}

/**
 * Evaluates the CEL rules of `schema` and its descendants on `value`,
 * pushing a cause per failed rule. On an update, `old` is the old value at
 * the same place when kube-apiserver can correlate it (object fields, map
 * keys, items of `x-kubernetes-list-type: map` lists by key; not items of
 * other lists). A rule naming `oldSelf` runs only where there is an old
 * value; any other rule is skipped on a value the update left unchanged
 * (ratcheting).
 */
export function evaluateRules(schema: Schema, value: unknown, path: string, causes: FieldCause[], old: Old = NO_OLD): void {
  if (value === null || value === undefined) return;
  const unchanged = old !== NO_OLD && deepEqual(old, value);
  const rules = compiledRules(schema);
  if (rules.length > 0) {
    const self = toCel(schema, value);
    const oldSelf = old === NO_OLD ? undefined : toCel(schema, old);
    for (const rule of rules) {
      if (rule.usesOldSelf ? oldSelf === undefined : unchanged) continue;
      const bindings: Record<string, CelInput> = oldSelf === undefined ? { self } : { self, oldSelf };
      const result = rule.check(bindings);
      if (result === true) continue;
      let message: string;
      if (isCelError(result)) message = `${celMessage(result)} evaluating rule: ${rule.rule}`;
      else {
        const expressed = rule.messageOf?.(bindings);
        message =
          typeof expressed === 'string' && expressed !== ''
            ? expressed
            : typeof rule.message === 'string' && rule.message !== ''
              ? rule.message
              : `failed rule: ${rule.rule}`;
      }
      const field = typeof rule.fieldPath === 'string' && rule.fieldPath.startsWith('.') ? `${path}${rule.fieldPath}` : path;
      const reason = rule.reason ?? 'FieldValueInvalid';
      const prefix = REASON_PREFIX[reason] ?? invalidValue(value);
      causes.push({ field, reason, message: `${prefix}${message}` });
    }
  }
  if (Array.isArray(value) && isJsonObject(schema['items'])) {
    const items = schema['items'];
    const keys = listMapKeys(schema);
    const oldItems = keys !== undefined && Array.isArray(old) ? old : [];
    value.forEach((item, i) => {
      const counterpart = keys === undefined ? undefined : oldItems.find((o) => keys.every((k) => deepEqual(field(o, k), field(item, k))));
      evaluateRules(items, item, `${path}[${i}]`, causes, counterpart === undefined ? NO_OLD : counterpart);
    });
  } else if (isJsonObject(value)) {
    const properties = isJsonObject(schema['properties']) ? (schema['properties'] as Record<string, Schema>) : {};
    const additional = isJsonObject(schema['additionalProperties']) ? schema['additionalProperties'] : undefined;
    for (const [key, v] of Object.entries(value)) {
      const child = properties[key] ?? additional;
      if (child === undefined) continue;
      const oldValue = isJsonObject(old) && key in old ? old[key] : NO_OLD;
      evaluateRules(child, v, path === '' ? key : `${path}.${key}`, causes, oldValue);
    }
  }
}

function field(value: unknown, key: string): unknown {
  return isJsonObject(value) ? value[key] : undefined;
}

/** The key fields of an `x-kubernetes-list-type: map` list, or undefined for any other list. */
function listMapKeys(schema: Schema): readonly string[] | undefined {
  if (schema['x-kubernetes-list-type'] !== 'map') return undefined;
  const keys = schema['x-kubernetes-list-map-keys'];
  return Array.isArray(keys) ? keys.filter((k): k is string => typeof k === 'string') : [];
}

/**
 * Duplicates in lists typed `set` (equal items) or `map` (equal key
 * fields), as kube-apiserver reports them: `Duplicate value` at the later
 * item, with the value (a set's item, or the key fields as JSON).
 */
export function listTypeCauses(schema: Schema, value: unknown, path: string, causes: FieldCause[]): void {
  if (Array.isArray(value)) {
    const type = schema['x-kubernetes-list-type'];
    const keys = listMapKeys(schema);
    value.forEach((item, i) => {
      const earlier = value.slice(0, i);
      if (type === 'set' && earlier.some((e) => deepEqual(e, item))) {
        causes.push({ field: `${path}[${i}]`, reason: 'FieldValueDuplicate', message: `Duplicate value: ${JSON.stringify(item)}` });
      } else if (keys !== undefined && earlier.some((e) => keys.every((k) => deepEqual(field(e, k), field(item, k))))) {
        const shownKeys = Object.fromEntries(keys.filter((k) => field(item, k) !== undefined).map((k) => [k, field(item, k)]));
        causes.push({ field: `${path}[${i}]`, reason: 'FieldValueDuplicate', message: `Duplicate value: ${JSON.stringify(shownKeys)}` });
      }
    });
    if (isJsonObject(schema['items'])) value.forEach((item, i) => listTypeCauses(schema['items'] as Schema, item, `${path}[${i}]`, causes));
  } else if (isJsonObject(value)) {
    const properties = isJsonObject(schema['properties']) ? (schema['properties'] as Record<string, Schema>) : {};
    const additional = isJsonObject(schema['additionalProperties']) ? schema['additionalProperties'] : undefined;
    for (const [key, v] of Object.entries(value)) {
      const child = properties[key] ?? additional;
      if (child !== undefined) listTypeCauses(child, v, path === '' ? key : `${path}.${key}`, causes);
    }
  }
}
