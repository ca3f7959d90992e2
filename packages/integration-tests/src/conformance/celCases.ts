import type { Json } from '@protean/envtest';
import { SCHEMA_GROUP } from './schemaCases.js';

/**
 * A CRD whose schema uses what the Gizmo fixture does not: CEL validation rules (messages, message expressions,
 * reasons, field paths, transition rules on `oldSelf`), formats, and list types with map keys.
 */
export const SPROCKET_CRD: Json = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `sprockets.${SCHEMA_GROUP}` },
  spec: {
    group: SCHEMA_GROUP,
    scope: 'Namespaced',
    names: { plural: 'sprockets', singular: 'sprocket', kind: 'Sprocket', listKind: 'SprocketList' },
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
                'x-kubernetes-validations': [
                  { rule: 'self.minReplicas <= self.maxReplicas', message: 'minReplicas must not exceed maxReplicas' },
                  { rule: "!has(self.mode) || self.mode != 'off' || self.minReplicas == 0" },
                  {
                    rule: '!has(self.owner) || self.owner != self.mode',
                    message: 'owner repeats mode',
                    reason: 'FieldValueForbidden',
                    fieldPath: '.owner',
                  },
                ],
                properties: {
                  minReplicas: { type: 'integer', default: 0 },
                  maxReplicas: { type: 'integer', default: 3 },
                  mode: { type: 'string' },
                  owner: { type: 'string' },
                  name: {
                    type: 'string',
                    'x-kubernetes-validations': [
                      { rule: "self.startsWith('app-')", messageExpression: "'name ' + self + ' must start with app-'" },
                      { rule: "self.matches('^[a-z-]+$')", message: 'lower case letters and dashes' },
                    ],
                  },
                  class: {
                    type: 'string',
                    'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'class is immutable' }],
                  },
                  size: {
                    type: 'integer',
                    'x-kubernetes-validations': [{ rule: 'self >= oldSelf', message: 'size may not shrink' }],
                  },
                  ratio: { type: 'number', 'x-kubernetes-validations': [{ rule: 'self < 1.0' }] },
                  tags: {
                    type: 'array',
                    'x-kubernetes-list-type': 'set',
                    items: { type: 'string' },
                    'x-kubernetes-validations': [{ rule: 'self.all(t, size(t) <= 5)', message: 'tags are at most 5 characters' }],
                  },
                  ports: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['name'],
                    items: {
                      type: 'object',
                      required: ['name'],
                      properties: {
                        name: { type: 'string' },
                        port: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'port is fixed' }] },
                      },
                    },
                  },
                  labels: {
                    type: 'object',
                    additionalProperties: { type: 'string' },
                    'x-kubernetes-validations': [{ rule: "self.all(k, !k.startsWith('x-'))", message: 'no x- labels' }],
                  },
                  startAt: { type: 'string', format: 'date-time' },
                  uid: { type: 'string', format: 'uuid' },
                  every: { type: 'string', format: 'duration' },
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

/** One write of a Sprocket (a create, or an update of an object created from `before`), and what both servers answer. */
export interface CelCase {
  readonly name: string;
  /** When given, the object is created with this spec first and `spec` is then written over it by a PUT. */
  readonly before?: Json;
  readonly spec: Json;
  readonly expect: {
    readonly status: number;
    readonly message?: string;
    /** The stored spec, for accepted writes. */
    readonly spec?: Json;
  };
}

const invalid = (name: string, causes: string): string => `Sprocket.${SCHEMA_GROUP} "${name}" is invalid: ${causes}`;
/** kube-apiserver's note that CEL rules were skipped because the schema already refused the object. */
const RULES_SKIPPED =
  '<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';
const D = { minReplicas: 0, maxReplicas: 3 };

/** What kube-apiserver v1.36 answers (recorded from it, and checked against it by the real conformance run). */
export const CEL_CASES: readonly CelCase[] = [
  { name: 'cel-valid', spec: { minReplicas: 1, maxReplicas: 2 }, expect: { status: 201, spec: { minReplicas: 1, maxReplicas: 2 } } },
  {
    name: 'cel-message',
    spec: { minReplicas: 3, maxReplicas: 2 },
    expect: { status: 422, message: invalid('cel-message', 'spec: Invalid value: minReplicas must not exceed maxReplicas') },
  },
  {
    name: 'cel-default-rule',
    spec: { minReplicas: 5 },
    expect: { status: 422, message: invalid('cel-default-rule', 'spec: Invalid value: minReplicas must not exceed maxReplicas') },
  },
  {
    name: 'cel-failed-rule',
    spec: { mode: 'off', minReplicas: 1 },
    expect: {
      status: 422,
      message: invalid(
        'cel-failed-rule',
        `spec: Invalid value: failed rule: !has(self.mode) || self.mode != 'off' || self.minReplicas == 0`,
      ),
    },
  },
  { name: 'cel-has-ok', spec: { mode: 'off' }, expect: { status: 201, spec: { mode: 'off', ...D } } },
  {
    name: 'cel-reason-path',
    spec: { mode: 'a', owner: 'a' },
    expect: { status: 422, message: invalid('cel-reason-path', 'spec.owner: Forbidden: owner repeats mode') },
  },
  {
    name: 'cel-message-expression',
    spec: { name: 'web' },
    expect: {
      status: 422,
      message: invalid('cel-message-expression', 'spec.name: Invalid value: "web": name web must start with app-'),
    },
  },
  {
    name: 'cel-two-rules',
    spec: { name: 'Web' },
    expect: {
      status: 422,
      message: invalid(
        'cel-two-rules',
        '[spec.name: Invalid value: "Web": name Web must start with app-, spec.name: Invalid value: "Web": lower case letters and dashes]',
      ),
    },
  },
  { name: 'cel-string-ok', spec: { name: 'app-web' }, expect: { status: 201, spec: { name: 'app-web', ...D } } },
  {
    name: 'cel-number',
    spec: { ratio: 1.5 },
    expect: { status: 422, message: invalid('cel-number', 'spec.ratio: Invalid value: 1.5: failed rule: self < 1.0') },
  },
  { name: 'cel-number-int', spec: { ratio: 0 }, expect: { status: 201, spec: { ratio: 0, ...D } } },
  {
    name: 'cel-list-all',
    spec: { tags: ['a', 'abcdefg'] },
    expect: { status: 422, message: invalid('cel-list-all', 'spec.tags: Invalid value: tags are at most 5 characters') },
  },
  {
    name: 'cel-map-all',
    spec: { labels: { a: '1', 'x-b': '2' } },
    expect: { status: 422, message: invalid('cel-map-all', 'spec.labels: Invalid value: no x- labels') },
  },
  { name: 'cel-transition-create', spec: { class: 'gold', size: 2 }, expect: { status: 201, spec: { class: 'gold', size: 2, ...D } } },
  {
    name: 'cel-transition-immutable',
    before: { class: 'gold' },
    spec: { class: 'silver' },
    expect: { status: 422, message: invalid('cel-transition-immutable', 'spec.class: Invalid value: "silver": class is immutable') },
  },
  {
    name: 'cel-transition-shrink',
    before: { size: 3 },
    spec: { size: 2 },
    expect: { status: 422, message: invalid('cel-transition-shrink', 'spec.size: Invalid value: 2: size may not shrink') },
  },
  { name: 'cel-transition-grow', before: { size: 3 }, spec: { size: 4 }, expect: { status: 200, spec: { size: 4, ...D } } },
  { name: 'cel-transition-new-field', before: {}, spec: { class: 'gold' }, expect: { status: 200, spec: { class: 'gold', ...D } } },
  {
    name: 'cel-transition-list-map',
    before: { ports: [{ name: 'http', port: 80 }] },
    spec: { ports: [{ name: 'http', port: 81 }] },
    expect: { status: 422, message: invalid('cel-transition-list-map', 'spec.ports[0].port: Invalid value: 81: port is fixed') },
  },
  {
    name: 'cel-transition-list-map-reordered',
    before: { ports: [{ name: 'http', port: 80 }] },
    spec: {
      ports: [
        { name: 'grpc', port: 90 },
        { name: 'http', port: 80 },
      ],
    },
    expect: {
      status: 200,
      spec: {
        ports: [
          { name: 'grpc', port: 90 },
          { name: 'http', port: 80 },
        ],
        ...D,
      },
    },
  },
  {
    name: 'set-duplicate',
    spec: { tags: ['a', 'b', 'a'] },
    expect: { status: 422, message: invalid('set-duplicate', 'spec.tags[2]: Duplicate value: "a"') },
  },
  {
    name: 'map-key-duplicate',
    spec: {
      ports: [
        { name: 'http', port: 80 },
        { name: 'http', port: 81 },
      ],
    },
    expect: {
      status: 422,
      message: invalid('map-key-duplicate', 'spec.ports[1]: Duplicate value: {"name":"http"}'),
    },
  },
  {
    name: 'format-date-time',
    spec: { startAt: 'tomorrow' },
    expect: {
      status: 422,
      message: invalid(
        'format-date-time',
        `[${RULES_SKIPPED}, spec.startAt: Invalid value: "tomorrow": spec.startAt in body must be of type date-time: "tomorrow"]`,
      ),
    },
  },
  {
    name: 'format-date-time-ok',
    spec: { startAt: '2026-12-04T10:00:00Z' },
    expect: { status: 201, spec: { startAt: '2026-12-04T10:00:00Z', ...D } },
  },
  {
    name: 'format-uuid',
    spec: { uid: 'not-a-uuid' },
    expect: {
      status: 422,
      message: invalid(
        'format-uuid',
        `[${RULES_SKIPPED}, spec.uid: Invalid value: "not-a-uuid": spec.uid in body must be of type uuid: "not-a-uuid"]`,
      ),
    },
  },
  {
    name: 'format-duration',
    spec: { every: 'often' },
    expect: {
      status: 422,
      message: invalid(
        'format-duration',
        `[${RULES_SKIPPED}, spec.every: Invalid value: "often": spec.every in body must be of type duration: "often"]`,
      ),
    },
  },
  { name: 'format-duration-ok', spec: { every: '1h30m' }, expect: { status: 201, spec: { every: '1h30m', ...D } } },
];
