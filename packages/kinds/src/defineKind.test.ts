import { describe, expect, it } from '@jest/globals';
import Type, { type TSchema } from 'typebox';
import { defineKind, pluralOf, type KindObject } from './defineKind.js';
import { KindSchemaError } from './KindSchemaError.js';

const Database = defineKind({
  group: 'demo.protean.dev',
  kind: 'Database',
  shortNames: ['db'],
  versions: [
    {
      name: 'v1alpha1',
      served: true,
      spec: Type.Object({ engine: Type.String() }),
    },
    {
      name: 'v1',
      spec: Type.Object(
        {
          engine: Type.Union([Type.Literal('postgres'), Type.Literal('mysql')]),
          size: Type.Optional(Type.Integer({ minimum: 1, maximum: 64, default: 8 })),
          labels: Type.Optional(Type.Record(Type.String(), Type.String())),
          port: Type.Optional(Type.Union([Type.Integer(), Type.String()])),
          note: Type.Optional(Type.Union([Type.String(), Type.Null()])),
          extra: Type.Optional(Type.Unknown()),
          users: Type.Array(Type.Object({ name: Type.String({ pattern: '^[a-z]+$' }) }), { maxItems: 5 }),
        },
        { 'x-kubernetes-validations': [{ rule: 'self.size >= oldSelf.size', message: 'size cannot shrink', optionalOldSelf: false }] },
      ),
      status: Type.Object({ phase: Type.Optional(Type.String()), secretName: Type.Optional(Type.String()) }),
      printerColumns: [{ name: 'Engine', type: 'string', jsonPath: '.spec.engine' }],
      validations: [{ rule: "!has(self.status) || self.status.phase != 'Broken'", message: 'broken' }],
    },
  ],
});

describe('defineKind', () => {
  it('builds the CRD: names, scope, the storage version, the status subresource, columns, rules', () => {
    const crd = Database.crd();
    expect(crd.metadata.name).toBe('databases.demo.protean.dev');
    expect(crd.spec['scope']).toBe('Namespaced');
    expect(crd.spec['names']).toEqual({
      plural: 'databases',
      singular: 'database',
      kind: 'Database',
      listKind: 'DatabaseList',
      shortNames: ['db'],
    });
    const [alpha, v1] = crd.spec['versions'] as Record<string, unknown>[];
    expect(alpha).toMatchObject({ name: 'v1alpha1', served: true, storage: false });
    expect(alpha).not.toHaveProperty('subresources');
    expect(v1).toMatchObject({ name: 'v1', served: true, storage: true, subresources: { status: {} } });
    expect(v1!['additionalPrinterColumns']).toEqual([{ name: 'Engine', type: 'string', jsonPath: '.spec.engine' }]);
    expect(Database.storageVersion).toBe('v1');
    expect(Database.gvr()).toEqual({ group: 'demo.protean.dev', version: 'v1', resource: 'databases' });
    expect(Database.gvr('v1alpha1').version).toBe('v1alpha1');
    expect(() => Database.gvr('v2')).toThrow(/has no version v2 \(it has v1alpha1, v1\)/);
    expect(Database.typeMeta()).toEqual({ apiVersion: 'demo.protean.dev/v1', kind: 'Database' });
    // A copy each time: changing one changes nothing else.
    (crd.spec['names'] as Record<string, unknown>)['plural'] = 'x';
    expect((Database.crd().spec['names'] as Record<string, unknown>)['plural']).toBe('databases');
  });

  it('turns the TypeBox schemas into structural ones: enums, records, int-or-string, nullable, unknown, CEL rules', () => {
    const v1 = (Database.crd().spec['versions'] as { schema: { openAPIV3Schema: Record<string, unknown> } }[])[1]!;
    const root = v1.schema.openAPIV3Schema;
    expect(root['x-kubernetes-validations']).toEqual([{ rule: "!has(self.status) || self.status.phase != 'Broken'", message: 'broken' }]);
    const spec = (root['properties'] as Record<string, Record<string, unknown>>)['spec']!;
    expect(spec['required']).toEqual(['engine', 'users']);
    expect(spec['x-kubernetes-validations']).toEqual([
      { rule: 'self.size >= oldSelf.size', message: 'size cannot shrink', optionalOldSelf: false },
    ]);
    const p = spec['properties'] as Record<string, unknown>;
    expect(p['engine']).toEqual({ type: 'string', enum: ['postgres', 'mysql'] });
    expect(p['size']).toEqual({ type: 'integer', minimum: 1, maximum: 64, default: 8 });
    expect(p['labels']).toEqual({ type: 'object', additionalProperties: { type: 'string' } });
    expect(p['port']).toEqual({ 'x-kubernetes-int-or-string': true });
    expect(p['note']).toEqual({ type: 'string', nullable: true });
    expect(p['extra']).toEqual({ 'x-kubernetes-preserve-unknown-fields': true });
    expect(p['users']).toEqual({
      type: 'array',
      maxItems: 5,
      items: { type: 'object', required: ['name'], properties: { name: { type: 'string', pattern: '^[a-z]+$' } } },
    });
    const status = (root['properties'] as Record<string, Record<string, unknown>>)['status']!;
    expect(status).toEqual({ type: 'object', properties: { phase: { type: 'string' }, secretName: { type: 'string' } } });
  });

  it('gives the object type of the last version (a compile-time check, and what a handler writes)', () => {
    type Db = KindObject<typeof Database>;
    const db: Db = {
      apiVersion: 'demo.protean.dev/v1',
      kind: 'Database',
      metadata: { name: 'a', namespace: 'ns' },
      spec: { engine: 'postgres', users: [{ name: 'app' }] },
      status: { phase: 'Ready' },
    };
    // @ts-expect-error: 'oracle' is not one of the engine literals
    const wrong: Db['spec']['engine'] = 'oracle';
    type Alpha = KindObject<typeof Database, 'v1alpha1'>;
    const alpha: Alpha = {
      apiVersion: 'demo.protean.dev/v1alpha1',
      kind: 'Database',
      metadata: { name: 'b' },
      spec: { engine: 'anything' },
    };
    expect([db.spec.engine, wrong, alpha.spec.engine]).toEqual(['postgres', 'oracle', 'anything']);
  });

  it('refuses what cannot be a CRD, naming the kind, the version and the path', () => {
    const kind = (props: Record<string, TSchema>) =>
      defineKind({ group: 'demo.protean.dev', kind: 'Bad', versions: [{ name: 'v1', spec: Type.Object(props) }] });
    expect(() => kind({ x: Type.Union([Type.String(), Type.Boolean()]) })).toThrow(
      new KindSchemaError(
        'Bad v1 .spec.x',
        'a union of different schemas cannot be expressed (only literals, X | null, or integer | string)',
      ),
    );
    expect(() => kind({ y: Type.Union([Type.Literal('a'), Type.Literal(1)]) })).toThrow(
      /Bad v1 \.spec\.y: a union of literals of different types/,
    );
    expect(() => kind({ z: Type.Tuple([Type.String(), Type.String()]) })).toThrow(/Bad v1 \.spec\.z/);
    expect(() => defineKind({ group: 'nodot', kind: 'A', versions: [{ name: 'v1', spec: Type.Object({}) }] })).toThrow(
      /group must be a DNS subdomain with a dot/,
    );
    expect(() => defineKind({ group: 'a.b', kind: 'lower', versions: [{ name: 'v1', spec: Type.Object({}) }] })).toThrow(/UpperCamelCase/);
    expect(() => defineKind({ group: 'a.b', kind: 'A', versions: [] })).toThrow(/at least one version/);
    expect(() => defineKind({ group: 'a.b', kind: 'A', versions: [{ name: 'one', spec: Type.Object({}) }] })).toThrow(
      /version names look like v1/,
    );
    expect(() =>
      defineKind({
        group: 'a.b',
        kind: 'A',
        versions: [
          { name: 'v1', storage: true, spec: Type.Object({}) },
          { name: 'v2', storage: true, spec: Type.Object({}) },
        ],
      }),
    ).toThrow(/only one version may be the storage version, got v1, v2/);
  });

  it('makes the usual plurals, and takes one given', () => {
    expect(['webapp', 'index', 'policy', 'day', 'status', 'mesh'].map(pluralOf)).toEqual([
      'webapps',
      'indexes',
      'policies',
      'days',
      'statuses',
      'meshes',
    ]);
    expect(defineKind({ group: 'a.b', kind: 'Index', plural: 'indices', versions: [{ name: 'v1', spec: Type.Object({}) }] }).crdName).toBe(
      'indices.a.b',
    );
  });
});
