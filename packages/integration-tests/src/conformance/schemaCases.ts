import type { Json } from '@protean/envtest';

/** The API group of the schema fixture. */
export const SCHEMA_GROUP = 'schema.protean.dev';

/** A CRD with a structural schema that exercises what kube-apiserver enforces (no CEL rules). */
export const GIZMO_CRD: Json = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `gizmos.${SCHEMA_GROUP}` },
  spec: {
    group: SCHEMA_GROUP,
    scope: 'Namespaced',
    names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['image'],
                properties: {
                  image: { type: 'string', minLength: 1 },
                  replicas: { type: 'integer', minimum: 0, maximum: 10, default: 1 },
                  tier: { type: 'string', enum: ['web', 'worker'] },
                  name: { type: 'string', pattern: '^[a-z]+$', maxLength: 8 },
                  ratio: { type: 'number', minimum: 0.5 },
                  port: { 'x-kubernetes-int-or-string': true },
                  labels: { type: 'object', additionalProperties: { type: 'string' } },
                  users: {
                    type: 'array',
                    maxItems: 2,
                    items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
                  },
                  extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                  nested: { type: 'object', default: {}, properties: { flag: { type: 'boolean', default: false } } },
                  note: { type: 'string', nullable: true },
                  weight: { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 1, exclusiveMaximum: true },
                  tags: { type: 'array', minItems: 1, items: { type: 'string' } },
                },
              },
              status: { type: 'object', properties: { phase: { type: 'string' } } },
            },
          },
        },
      },
    ],
  },
};

/** One object written to both servers, and what each must answer. */
export interface SchemaCase {
  readonly name: string;
  /** The object's fields besides apiVersion, kind and metadata.name (`metadata` merged in when given). */
  readonly body: Json;
  readonly fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
  readonly expect: {
    readonly status: number;
    /** The Status message, for refusals. */
    readonly message?: string;
    /** The Warning header texts. */
    readonly warnings?: readonly string[];
    /** The stored spec, for accepted writes. */
    readonly spec?: Json;
  };
}

const DEFAULTED = { nested: { flag: false }, replicas: 1 };
const invalid = (name: string, causes: string): string => `Gizmo.${SCHEMA_GROUP} "${name}" is invalid: ${causes}`;

/**
 * What kube-apiserver v1.36 answers to each of these creates (recorded from it, and checked against it by the
 * real conformance run): pruning and its warnings, `fieldValidation`, defaults, and validation messages.
 */
export const SCHEMA_CASES: readonly SchemaCase[] = [
  { name: 'valid', body: { spec: { image: 'a' } }, expect: { status: 201, spec: { image: 'a', ...DEFAULTED } } },
  {
    name: 'unknown-warn',
    body: { spec: { image: 'a', bogus: 1 } },
    expect: { status: 201, warnings: ['unknown field "spec.bogus"'], spec: { image: 'a', ...DEFAULTED } },
  },
  {
    name: 'unknown-strict',
    body: { spec: { image: 'a', bogus: 1 } },
    fieldValidation: 'Strict',
    expect: {
      status: 400,
      message: 'Gizmo in version "v1" cannot be handled as a Gizmo: strict decoding error: unknown field "spec.bogus"',
    },
  },
  {
    name: 'unknown-ignore',
    body: { spec: { image: 'a', bogus: 1 } },
    fieldValidation: 'Ignore',
    expect: { status: 201, warnings: [], spec: { image: 'a', ...DEFAULTED } },
  },
  { name: 'unknown-root', body: { spec: { image: 'a' }, foo: 1 }, expect: { status: 201, warnings: ['unknown field "foo"'] } },
  {
    name: 'unknown-meta',
    body: { spec: { image: 'a' }, metadata: { bogus: 1 } },
    expect: { status: 201, warnings: ['unknown field "metadata.bogus"'] },
  },
  {
    name: 'unknown-nested',
    body: { spec: { image: 'a', users: [{ name: 'x', extra: 1 }], nested: { flag: true, nope: 2 } } },
    expect: {
      status: 201,
      warnings: ['unknown field "spec.nested.nope"', 'unknown field "spec.users[0].extra"'],
      spec: { image: 'a', nested: { flag: true }, replicas: 1, users: [{ name: 'x' }] },
    },
  },
  {
    name: 'unknown-strict-two',
    body: { spec: { image: 'a', b1: 1, nested: { b2: 2 } } },
    fieldValidation: 'Strict',
    expect: {
      status: 400,
      message:
        'Gizmo in version "v1" cannot be handled as a Gizmo: strict decoding error: unknown field "spec.b1", unknown field "spec.nested.b2"',
    },
  },
  {
    name: 'missing-required',
    body: { spec: { replicas: 1 } },
    expect: { status: 422, message: invalid('missing-required', 'spec.image: Required value') },
  },
  {
    name: 'min-length',
    body: { spec: { image: '' } },
    expect: {
      status: 422,
      message: invalid('min-length', 'spec.image: Invalid value: "": spec.image in body should be at least 1 chars long'),
    },
  },
  {
    name: 'maximum',
    body: { spec: { image: 'a', replicas: 11 } },
    expect: {
      status: 422,
      message: invalid('maximum', 'spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10'),
    },
  },
  {
    name: 'minimum',
    body: { spec: { image: 'a', replicas: -1 } },
    expect: {
      status: 422,
      message: invalid('minimum', 'spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0'),
    },
  },
  {
    name: 'type-string-for-int',
    body: { spec: { image: 'a', replicas: '3' } },
    expect: {
      status: 422,
      message: invalid(
        'type-string-for-int',
        'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
      ),
    },
  },
  {
    name: 'type-float-for-int',
    body: { spec: { image: 'a', replicas: 1.5 } },
    expect: {
      status: 422,
      message: invalid(
        'type-float-for-int',
        '[spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number", <nil>: Invalid value: "": Checked value must be of type integer (default format) in spec.replicas]',
      ),
    },
  },
  {
    name: 'enum',
    body: { spec: { image: 'a', tier: 'db' } },
    expect: { status: 422, message: invalid('enum', 'spec.tier: Unsupported value: "db": supported values: "web", "worker"') },
  },
  {
    name: 'enum-ok',
    body: { spec: { image: 'a', tier: 'web' } },
    expect: { status: 201, spec: { image: 'a', tier: 'web', ...DEFAULTED } },
  },
  {
    name: 'pattern',
    body: { spec: { image: 'a', name: 'ABC' } },
    expect: { status: 422, message: invalid('pattern', `spec.name: Invalid value: "ABC": spec.name in body should match '^[a-z]+$'`) },
  },
  {
    name: 'max-length',
    body: { spec: { image: 'a', name: 'abcdefghij' } },
    expect: { status: 422, message: invalid('max-length', 'spec.name: Too long: may not be more than 8 bytes') },
  },
  {
    name: 'number-min',
    body: { spec: { image: 'a', ratio: 0.1 } },
    expect: {
      status: 422,
      message: invalid('number-min', 'spec.ratio: Invalid value: 0.1: spec.ratio in body should be greater than or equal to 0.5'),
    },
  },
  {
    name: 'number-int-ok',
    body: { spec: { image: 'a', ratio: 2 } },
    expect: { status: 201, spec: { image: 'a', ratio: 2, ...DEFAULTED } },
  },
  {
    name: 'int-or-string-int',
    body: { spec: { image: 'a', port: 8080 } },
    expect: { status: 201, spec: { image: 'a', port: 8080, ...DEFAULTED } },
  },
  {
    name: 'int-or-string-str',
    body: { spec: { image: 'a', port: 'http' } },
    expect: { status: 201, spec: { image: 'a', port: 'http', ...DEFAULTED } },
  },
  {
    name: 'int-or-string-bool',
    body: { spec: { image: 'a', port: true } },
    expect: {
      status: 422,
      message: invalid(
        'int-or-string-bool',
        'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
      ),
    },
  },
  {
    name: 'map-value-type',
    body: { spec: { image: 'a', labels: { a: 1 } } },
    expect: {
      status: 422,
      message: invalid(
        'map-value-type',
        'spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"',
      ),
    },
  },
  {
    name: 'max-items',
    body: { spec: { image: 'a', users: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] } },
    expect: { status: 422, message: invalid('max-items', 'spec.users: Too many: 3: must have at most 2 items') },
  },
  {
    name: 'item-required',
    body: { spec: { image: 'a', users: [{}] } },
    expect: { status: 422, message: invalid('item-required', 'spec.users[0].name: Required value') },
  },
  {
    name: 'preserve-unknown',
    body: { spec: { image: 'a', extra: { any: { deep: [1, 'x'] } } } },
    expect: { status: 201, warnings: [], spec: { image: 'a', extra: { any: { deep: [1, 'x'] } }, ...DEFAULTED } },
  },
  {
    name: 'nullable-null',
    body: { spec: { image: 'a', note: null } },
    expect: { status: 201, spec: { image: 'a', note: null, ...DEFAULTED } },
  },
  {
    name: 'not-nullable-null',
    body: { spec: { image: 'a', tier: null } },
    expect: { status: 201, warnings: [], spec: { image: 'a', ...DEFAULTED } },
  },
  {
    name: 'status-on-create',
    body: { spec: { image: 'a' }, status: { phase: 'Done' } },
    expect: { status: 201, spec: { image: 'a', ...DEFAULTED } },
  },
  {
    name: 'two-errors',
    body: { spec: { image: '', replicas: 11 } },
    expect: {
      status: 422,
      message: invalid(
        'two-errors',
        '[spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10, spec.image: Invalid value: "": spec.image in body should be at least 1 chars long]',
      ),
    },
  },
  {
    name: 'spec-wrong-type',
    body: { spec: 'nope' },
    expect: {
      status: 422,
      message: invalid('spec-wrong-type', 'spec: Invalid value: "string": spec in body must be of type object: "string"'),
    },
  },
  {
    name: 'nested-default-given',
    body: { spec: { image: 'a', nested: { flag: true } } },
    expect: { status: 201, spec: { image: 'a', nested: { flag: true }, replicas: 1 } },
  },
  { name: 'missing-spec', body: {}, expect: { status: 201 } },
  {
    name: 'exclusive-minimum',
    body: { spec: { image: 'a', weight: 0 } },
    expect: {
      status: 422,
      message: invalid('exclusive-minimum', 'spec.weight: Invalid value: 0: spec.weight in body should be greater than 0'),
    },
  },
  {
    name: 'exclusive-maximum',
    body: { spec: { image: 'a', weight: 1 } },
    expect: {
      status: 422,
      message: invalid('exclusive-maximum', 'spec.weight: Invalid value: 1: spec.weight in body should be less than 1'),
    },
  },
  {
    name: 'weight-ok',
    body: { spec: { image: 'a', weight: 0.5 } },
    expect: { status: 201, spec: { image: 'a', weight: 0.5, ...DEFAULTED } },
  },
  {
    name: 'min-items',
    body: { spec: { image: 'a', tags: [] } },
    expect: { status: 422, message: invalid('min-items', 'spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items') },
  },
  {
    name: 'item-type',
    body: { spec: { image: 'a', tags: ['x', 2] } },
    expect: {
      status: 422,
      message: invalid('item-type', 'spec.tags[1]: Invalid value: "integer": spec.tags[1] in body must be of type string: "integer"'),
    },
  },
  {
    name: 'unknown-field-validation',
    body: { spec: { image: 'a' } },
    fieldValidation: 'Loose' as never,
    expect: {
      status: 422,
      message:
        'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loose": supported values: "", "Ignore", "Strict", "Warn"',
    },
  },
];
