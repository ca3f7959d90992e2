import { KindSchemaError } from './KindSchemaError.js';

/** A JSON Schema node as a CRD's `openAPIV3Schema` holds it. */
export type JsonSchemaProps = { [key: string]: unknown };

/** Keywords a structural schema keeps as they are. */
const KEPT = new Set([
  'type',
  'format',
  'description',
  'default',
  'nullable',
  'enum',
  'maximum',
  'minimum',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'multipleOf',
  'maxProperties',
  'minProperties',
  'required',
  'title',
  'example',
]);

/**
 * A TypeBox (JSON Schema) node as a CRD structural schema node: unions of
 * literals become `enum`, `const` becomes a one-value `enum`, a record
 * (`patternProperties` matching everything) becomes `additionalProperties`,
 * an `X | null` union becomes `X` with `nullable: true`, an unconstrained
 * node (`Type.Unknown()`) keeps unknown fields
 * (`x-kubernetes-preserve-unknown-fields`), and `x-kubernetes-*`
 * extensions pass through. Anything else a structural schema cannot say
 * is refused with a {@link KindSchemaError} naming its path.
 */
export function toStructural(node: unknown, where: string): JsonSchemaProps {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) throw new KindSchemaError(where, 'is not a schema');
  const source = JSON.parse(JSON.stringify(node)) as JsonSchemaProps;
  return convert(source, where);
}

function convert(node: JsonSchemaProps, where: string): JsonSchemaProps {
  for (const bad of ['oneOf', 'not', '$ref', 'allOf', 'prefixItems', 'if', 'then', 'else'] as const) {
    if (bad in node) throw new KindSchemaError(where, `uses ${bad}, which a structural schema cannot express`);
  }
  if (Array.isArray(node['anyOf'])) return union(node, node['anyOf'] as JsonSchemaProps[], where);
  const out: JsonSchemaProps = {};
  for (const [key, value] of Object.entries(node)) {
    if (KEPT.has(key) || key.startsWith('x-kubernetes-')) out[key] = value;
  }
  if ('const' in node) {
    out['enum'] = [node['const']];
    out['type'] ??= typeOfValue(node['const'], where);
  }
  if (node['type'] === 'object') {
    const properties = node['properties'] as Record<string, JsonSchemaProps> | undefined;
    if (properties !== undefined) {
      out['properties'] = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, convert(v, `${where}.${k}`)]));
    }
    const patterns = node['patternProperties'] as Record<string, JsonSchemaProps> | undefined;
    const additional = node['additionalProperties'];
    if (patterns !== undefined) {
      const entries = Object.entries(patterns);
      if (entries.length !== 1 || (entries[0]![0] !== '^.*$' && entries[0]![0] !== '^(.*)$')) {
        throw new KindSchemaError(
          where,
          'patternProperties other than a record of any key cannot be expressed; use Type.Record(Type.String(), ...)',
        );
      }
      out['additionalProperties'] = convert(entries[0]![1], `${where}[*]`);
    } else if (additional !== undefined && typeof additional === 'object' && additional !== null) {
      out['additionalProperties'] = convert(additional as JsonSchemaProps, `${where}[*]`);
    }
    if (out['properties'] !== undefined && out['additionalProperties'] !== undefined) {
      throw new KindSchemaError(where, 'has both properties and additionalProperties, which a structural schema forbids');
    }
    if (Array.isArray(out['required']) && (out['required'] as unknown[]).length === 0) delete out['required'];
  }
  if (node['type'] === 'array') {
    if (node['items'] === undefined || Array.isArray(node['items'])) throw new KindSchemaError(where, 'an array needs one items schema');
    out['items'] = convert(node['items'] as JsonSchemaProps, `${where}[]`);
  }
  if (out['type'] === undefined && out['x-kubernetes-int-or-string'] !== true && out['x-kubernetes-preserve-unknown-fields'] !== true) {
    // Type.Unknown() / Type.Any(): anything goes, which a structural schema says this way.
    if (Object.keys(out).every((k) => k === 'description' || k === 'title')) {
      out['x-kubernetes-preserve-unknown-fields'] = true;
      return out;
    }
    throw new KindSchemaError(where, 'has no type');
  }
  return out;
}

/** `anyOf`: literals of one type (an enum), or `X | null` (nullable), or int-or-string. */
function union(node: JsonSchemaProps, members: JsonSchemaProps[], where: string): JsonSchemaProps {
  const nonNull = members.filter((m) => m['type'] !== 'null');
  const nullable = nonNull.length < members.length;
  const extras: JsonSchemaProps = {};
  for (const [key, value] of Object.entries(node))
    if (key !== 'anyOf' && (KEPT.has(key) || key.startsWith('x-kubernetes-'))) extras[key] = value;
  if (nonNull.length > 0 && nonNull.every((m) => 'const' in m)) {
    const values = nonNull.map((m) => m['const']);
    const types = new Set(values.map((v) => typeOfValue(v, where)));
    if (types.size !== 1)
      throw new KindSchemaError(where, `a union of literals of different types (${[...types].join(', ')}) cannot be an enum`);
    return { ...extras, type: [...types][0], enum: values, ...(nullable ? { nullable: true } : {}) };
  }
  const types = new Set(nonNull.map((m) => m['type']));
  if (types.size === 2 && types.has('integer') && types.has('string') && nonNull.length === 2) {
    return { ...extras, 'x-kubernetes-int-or-string': true };
  }
  if (nonNull.length === 1) return { ...convert(nonNull[0]!, where), ...extras, ...(nullable ? { nullable: true } : {}) };
  throw new KindSchemaError(where, 'a union of different schemas cannot be expressed (only literals, X | null, or integer | string)');
}

function typeOfValue(value: unknown, where: string): string {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  throw new KindSchemaError(where, `a literal ${JSON.stringify(value)} cannot be part of an enum`);
}
