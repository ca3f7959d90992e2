import { deepEqual } from './deepEqual.js';
import { isJsonObject } from './mergePatch.js';
import { evaluateRules, hasRules, listTypeCauses, NO_OLD } from './crdRules.js';
import { METADATA_ORDER } from './objectRules.js';
import { matchesFormat } from './schemaFormats.js';
import { badRequest, invalid, type FieldCause } from './statusErrors.js';
import type { ServedResource } from './ServedResource.js';
import type { KubeObject } from './types.js';

/** A node of a CRD's structural schema (`openAPIV3Schema`). */
type Schema = Record<string, unknown>;

/** How a write treats fields its schema does not know (`?fieldValidation=`); kube-apiserver's default is `Warn`. */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** ObjectMeta's fields: anything else under `metadata` is unknown. */
const OBJECT_META: ReadonlySet<string> = new Set([...METADATA_ORDER, 'selfLink']);

/**
 * Enforces a custom resource's structural schema on an object about to be
 * stored, as kube-apiserver does: fields the schema does not know are
 * pruned (and named: refused with 400 under `Strict`, returned as
 * warnings under `Warn`, silent under `Ignore`; a `null` where the schema
 * is not `nullable` is dropped silently), defaults are filled in (also
 * inside defaulted objects), then types, `required`, `enum`, `pattern`,
 * lengths, bounds and item counts are checked, with kube-apiserver's
 * messages (422 Invalid, every cause listed). On an update (`old` given), a
 * value equal to the old one is not checked again (kube-apiserver's CRD
 * validation ratcheting): an object stored under an older schema can
 * still have its status written. Mutates `obj`; returns the warnings.
 */
export function enforceSchema(
  def: Pick<ServedResource, 'group' | 'version' | 'kind'>,
  schema: Readonly<Schema>,
  obj: KubeObject,
  fieldValidation: FieldValidation,
  old?: KubeObject,
): string[] {
  const warnings = decodeWithSchema(def, schema, obj, fieldValidation);
  validateWithSchema(def, schema, obj, old);
  return warnings;
}

/**
 * The first half of {@link enforceSchema}, what kube-apiserver does as it decodes a request (before admission):
 * prunes what the schema does not know (400 under `Strict`) and fills in defaults. Mutates `obj`; returns the
 * warnings.
 */
export function decodeWithSchema(
  def: Pick<ServedResource, 'version' | 'kind'>,
  schema: Readonly<Schema>,
  obj: KubeObject,
  fieldValidation: FieldValidation,
): string[] {
  const unknown: string[] = [];
  // The root: apiVersion, kind and metadata are the API machinery's; everything else is the schema's.
  const properties = isJsonObject(schema['properties']) ? (schema['properties'] as Record<string, Schema>) : {};
  const preserveRoot = schema['x-kubernetes-preserve-unknown-fields'] === true;
  for (const key of Object.keys(obj)) {
    if (key === 'apiVersion' || key === 'kind' || key === 'metadata') continue;
    const child = properties[key];
    if (child === undefined) {
      if (preserveRoot) continue;
      unknown.push(key);
      delete (obj as Record<string, unknown>)[key];
    } else if (obj[key] === null && child['nullable'] !== true) delete (obj as Record<string, unknown>)[key];
    else prune(child, obj[key], key, unknown);
  }
  for (const key of Object.keys(obj.metadata)) {
    if (OBJECT_META.has(key)) continue;
    unknown.push(`metadata.${key}`);
    delete (obj.metadata as Record<string, unknown>)[key];
  }
  unknown.sort();
  if (unknown.length > 0 && fieldValidation === 'Strict') {
    throw badRequest(
      `${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: strict decoding error: ${unknown.map((u) => `unknown field "${u}"`).join(', ')}`,
    );
  }
  applyDefaults(schema, obj);
  return fieldValidation === 'Warn' ? unknown.map((u) => `unknown field "${u}"`) : [];
}

/**
 * The second half of {@link enforceSchema}, kube-apiserver's validation of an object about to be stored (after
 * mutating admission): types, `required`, formats, CEL rules, list types; 422 Invalid naming every cause.
 */
export function validateWithSchema(
  def: Pick<ServedResource, 'group' | 'kind'>,
  schema: Readonly<Schema>,
  obj: KubeObject,
  old?: KubeObject,
): void {
  const properties = isJsonObject(schema['properties']) ? (schema['properties'] as Record<string, Schema>) : {};
  const causes: FieldCause[] = [];
  for (const [key, child] of Object.entries(properties)) {
    if (key in obj) check(child, obj[key], key, causes, old === undefined ? NO_OLD : (old as Record<string, unknown>)[key]);
  }
  for (const req of asStrings(schema['required'])) {
    if (!(req in obj) && (old === undefined || req in old))
      causes.push({ field: req, reason: 'FieldValueRequired', message: 'Required value' });
  }
  // CEL rules run on an object that passed the schema; otherwise they are said to be skipped.
  if (hasRules(schema)) {
    if (causes.length === 0) evaluateRules(schema, obj, '', causes, old ?? NO_OLD);
    else causes.push({ field: '<nil>', reason: 'FieldValueInvalid', message: RULES_NOT_CHECKED });
  }
  listTypeCauses(schema, obj, '', causes);
  if (causes.length > 0) throw invalid(def.group, def.kind, obj.metadata.name, causes);
}

/**
 * Fills in the defaults of `schema` under an object's fields (in place).
 * Besides writes, kube-apiserver defaults objects as it reads them from
 * storage: a default added to a CRD shows on objects stored before it,
 * with their resourceVersion unchanged.
 */
export function applyDefaults(schema: Readonly<Schema>, obj: KubeObject): void {
  if (!isJsonObject(schema['properties'])) return;
  for (const [key, child] of Object.entries(schema['properties'] as Record<string, Schema>)) {
    if (key === 'apiVersion' || key === 'kind' || key === 'metadata') continue;
    if (!(key in obj) && child['default'] !== undefined) (obj as Record<string, unknown>)[key] = structuredClone(child['default']);
    if (key in obj) fillDefaults(child, obj[key]);
  }
}

/** Removes what `schema` does not know from `value` (in place), recording each unknown field's path. */
function prune(schema: Schema, value: unknown, path: string, unknown: string[]): void {
  if (
    schema['x-kubernetes-preserve-unknown-fields'] === true &&
    !isJsonObject(schema['properties']) &&
    !isJsonObject(schema['additionalProperties'])
  )
    return;
  if (isJsonObject(value)) {
    const properties = isJsonObject(schema['properties']) ? (schema['properties'] as Record<string, Schema>) : undefined;
    const additional = isJsonObject(schema['additionalProperties']) ? (schema['additionalProperties'] as Schema) : undefined;
    if (properties === undefined && additional === undefined) {
      if (schema['type'] === 'object' && schema['x-kubernetes-preserve-unknown-fields'] !== true) {
        for (const key of Object.keys(value)) {
          unknown.push(`${path}.${key}`);
          delete value[key];
        }
      }
      return;
    }
    for (const key of Object.keys(value)) {
      const child = properties?.[key] ?? additional;
      if (child === undefined) {
        if (schema['x-kubernetes-preserve-unknown-fields'] === true) continue;
        unknown.push(`${path}.${key}`);
        delete value[key];
      } else if (value[key] === null && child['nullable'] !== true) delete value[key];
      else prune(child, value[key], `${path}.${key}`, unknown);
    }
  } else if (Array.isArray(value) && isJsonObject(schema['items'])) {
    value.forEach((item, i) => prune(schema['items'] as Schema, item, `${path}[${i}]`, unknown));
  }
}

/** Fills in defaults under `value` (in place), recursing into defaulted objects too. */
function fillDefaults(schema: Schema, value: unknown): void {
  if (isJsonObject(value) && isJsonObject(schema['properties'])) {
    for (const [key, child] of Object.entries(schema['properties'] as Record<string, Schema>)) {
      if (!(key in value) && child['default'] !== undefined) value[key] = structuredClone(child['default']);
      if (key in value) fillDefaults(child, value[key]);
    }
  } else if (isJsonObject(value) && isJsonObject(schema['additionalProperties'])) {
    for (const key of Object.keys(value)) fillDefaults(schema['additionalProperties'] as Schema, value[key]);
  } else if (Array.isArray(value) && isJsonObject(schema['items'])) {
    for (const item of value) fillDefaults(schema['items'] as Schema, item);
  }
}

/** kube-openapi's name for the JSON type of `value`. */
function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** `Invalid value: X` as Go's field errors print a value. */
function shown(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

const RULES_NOT_CHECKED =
  'Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';

function check(schema: Schema, value: unknown, path: string, causes: FieldCause[], old: unknown = NO_OLD): void {
  const bad = (message: string, reason = 'FieldValueInvalid'): void => void causes.push({ field: path, reason, message });
  if (value === null) return; // a null kept is nullable
  // Ratcheting: a value the update left as it was is not judged again.
  if (old !== NO_OLD && deepEqual(old, value)) return;
  const oldAt = (key: string | number): unknown =>
    old !== NO_OLD && old !== null && typeof old === 'object' && key in (old as object) ? (old as Record<string, unknown>)[key] : NO_OLD;
  if (schema['x-kubernetes-int-or-string'] === true) {
    const t = jsonType(value);
    if (t !== 'integer' && t !== 'string')
      bad(`Invalid value: "${t}": ${path} in body must be of type integer,string: "${t}"`, 'FieldValueTypeInvalid');
    return;
  }
  const type = schema['type'];
  if (typeof type === 'string') {
    const t = jsonType(value);
    const fits = t === type || (type === 'number' && t === 'integer');
    if (!fits) {
      bad(`Invalid value: "${t}": ${path} in body must be of type ${type}: "${t}"`, 'FieldValueTypeInvalid');
      if (type === 'integer' && t === 'number') {
        causes.push({
          field: '<nil>',
          reason: 'FieldValueInvalid',
          message: `Invalid value: "": Checked value must be of type integer (default format) in ${path}`,
        });
      }
      return;
    }
  }
  if (Array.isArray(schema['enum']) && !(schema['enum'] as unknown[]).some((e) => deepEqual(e, value))) {
    bad(
      `Unsupported value: ${shown(value)}: supported values: ${(schema['enum'] as unknown[]).map(shown).join(', ')}`,
      'FieldValueNotSupported',
    );
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (typeof schema['maxLength'] === 'number' && length > schema['maxLength'])
      bad(`Too long: may not be more than ${schema['maxLength']} bytes`, 'FieldValueTooLong');
    if (typeof schema['minLength'] === 'number' && length < schema['minLength']) {
      bad(`Invalid value: ${shown(value)}: ${path} in body should be at least ${schema['minLength']} chars long`);
    }
    if (typeof schema['pattern'] === 'string' && !new RegExp(schema['pattern'], 'u').test(value)) {
      bad(`Invalid value: ${shown(value)}: ${path} in body should match '${schema['pattern']}'`);
    }
    if (typeof schema['format'] === 'string' && !matchesFormat(schema['format'], value)) {
      bad(`Invalid value: ${shown(value)}: ${path} in body must be of type ${schema['format']}: ${shown(value)}`);
    }
  }
  if (typeof value === 'number') {
    const exMax = schema['exclusiveMaximum'] === true;
    const exMin = schema['exclusiveMinimum'] === true;
    if (typeof schema['maximum'] === 'number' && (exMax ? value >= schema['maximum'] : value > schema['maximum'])) {
      bad(`Invalid value: ${shown(value)}: ${path} in body should be less than ${exMax ? '' : 'or equal to '}${schema['maximum']}`);
    }
    if (typeof schema['minimum'] === 'number' && (exMin ? value <= schema['minimum'] : value < schema['minimum'])) {
      bad(`Invalid value: ${shown(value)}: ${path} in body should be greater than ${exMin ? '' : 'or equal to '}${schema['minimum']}`);
    }
  }
  if (Array.isArray(value)) {
    if (typeof schema['maxItems'] === 'number' && value.length > schema['maxItems'])
      bad(`Too many: ${value.length}: must have at most ${schema['maxItems']} items`, 'FieldValueTooMany');
    if (typeof schema['minItems'] === 'number' && value.length < schema['minItems']) {
      bad(`Invalid value: ${value.length}: ${path} in body should have at least ${schema['minItems']} items`);
    }
    if (isJsonObject(schema['items']))
      value.forEach((item, i) => check(schema['items'] as Schema, item, `${path}[${i}]`, causes, oldAt(i)));
  }
  if (isJsonObject(value)) {
    const properties = isJsonObject(schema['properties']) ? (schema['properties'] as Record<string, Schema>) : {};
    for (const [key, child] of Object.entries(properties)) if (key in value) check(child, value[key], `${path}.${key}`, causes, oldAt(key));
    if (isJsonObject(schema['additionalProperties'])) {
      for (const key of Object.keys(value)) {
        if (!(key in properties)) check(schema['additionalProperties'] as Schema, value[key], `${path}.${key}`, causes, oldAt(key));
      }
    }
    for (const req of asStrings(schema['required'])) {
      if (!(req in value)) causes.push({ field: `${path}.${req}`, reason: 'FieldValueRequired', message: 'Required value' });
    }
  }
}

function asStrings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}
