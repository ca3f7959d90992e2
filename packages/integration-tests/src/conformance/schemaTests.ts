import { beforeAll, describe, expect, it } from '@jest/globals';
import { kubeRequest, waitUntil, type Json } from '@protean/envtest';
import { parseWarnings } from '@protean/client/internal';
import { CEL_CASES, SPROCKET_CRD, type CelCase } from './celCases.js';
import { GIZMO_CRD, SCHEMA_CASES, SCHEMA_GROUP, type SchemaCase } from './schemaCases.js';
import type { SuiteContext } from './SuiteContext.js';

/**
 * A message's bracketed list of causes in a stable order: kube-apiserver lists the causes of one object in Go map
 * order (not the schema's), which differs from run to run; the causes themselves must be the same.
 */
function causesSorted(message: string | undefined): string | undefined {
  const m = message?.match(/^(.* is invalid: )\[(.*)\]$/);
  if (m === null || m === undefined) return message;
  return `${m[1]}[${m[2]!
    .split(/, (?=spec[.:]|<nil>|metadata\.)/)
    .sort()
    .join(', ')}]`;
}

/** CRD structural schemas enforced on writes: pruning and its warnings, fieldValidation, defaults, validation messages. */
export function schemaTests(ctx: SuiteContext): void {
  describe('CRD schemas', () => {
    let ns: string;
    beforeAll(async () => {
      const created = await kubeRequest(ctx.kc, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: GIZMO_CRD });
      if (created.status !== 201) throw new Error(`creating the Gizmo CRD answered ${created.status}: ${created.text}`);
      await waitUntil(
        async () => (await kubeRequest(ctx.kc, 'GET', `/apis/${SCHEMA_GROUP}/v1/gizmos`)).status === 200,
        'gizmos served',
        30_000,
      );
      ns = await ctx.namespace('schema');
    });

    it.each(SCHEMA_CASES.map((c) => [c.name, c] as const))('%s', async (_name: string, c: SchemaCase) => {
      const query = c.fieldValidation === undefined ? '' : `?fieldValidation=${c.fieldValidation}`;
      const metadata = { name: c.name, ...((c.body['metadata'] as Json | undefined) ?? {}) };
      const r = await kubeRequest(ctx.kc, 'POST', `/apis/${SCHEMA_GROUP}/v1/namespaces/${ns}/gizmos${query}`, {
        body: { apiVersion: `${SCHEMA_GROUP}/v1`, kind: 'Gizmo', ...c.body, metadata },
      });
      const header = r.headers['warning'];
      const got = {
        status: r.status,
        ...(c.expect.message === undefined ? {} : { message: causesSorted(r.json['message'] as string | undefined) }),
        ...(c.expect.warnings === undefined ? {} : { warnings: parseWarnings(Array.isArray(header) ? header.join(', ') : header) }),
        ...(c.expect.spec === undefined ? {} : { spec: r.json['spec'] }),
      };
      expect(got).toEqual({ ...c.expect, ...(c.expect.message === undefined ? {} : { message: causesSorted(c.expect.message) }) });
      if (r.status === 201) expect(r.json['status']).toBeUndefined();
    });
  });

  describe('CRD schemas: CEL rules, formats, list types', () => {
    let ns: string;
    const base = `/apis/${SCHEMA_GROUP}/v1/namespaces`;
    beforeAll(async () => {
      const created = await kubeRequest(ctx.kc, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: SPROCKET_CRD });
      if (created.status !== 201) throw new Error(`creating the Sprocket CRD answered ${created.status}: ${created.text}`);
      await waitUntil(
        async () => (await kubeRequest(ctx.kc, 'GET', `/apis/${SCHEMA_GROUP}/v1/sprockets`)).status === 200,
        'sprockets served',
        30_000,
      );
      ns = await ctx.namespace('cel');
    });

    it.each(CEL_CASES.map((c) => [c.name, c] as const))('%s', async (_name: string, c: CelCase) => {
      const object = (spec: Json, resourceVersion?: string): Json => ({
        apiVersion: `${SCHEMA_GROUP}/v1`,
        kind: 'Sprocket',
        metadata: { name: c.name, ...(resourceVersion === undefined ? {} : { resourceVersion }) },
        spec,
      });
      let r;
      if (c.before === undefined) {
        r = await kubeRequest(ctx.kc, 'POST', `${base}/${ns}/sprockets`, { body: object(c.spec) });
      } else {
        const first = await kubeRequest(ctx.kc, 'POST', `${base}/${ns}/sprockets`, { body: object(c.before) });
        expect(first.status).toBe(201);
        const rv = (first.json['metadata'] as Json)['resourceVersion'] as string;
        r = await kubeRequest(ctx.kc, 'PUT', `${base}/${ns}/sprockets/${c.name}`, { body: object(c.spec, rv) });
      }
      const got = {
        status: r.status,
        ...(c.expect.message === undefined ? {} : { message: causesSorted(r.json['message'] as string | undefined) }),
        ...(c.expect.spec === undefined ? {} : { spec: r.json['spec'] }),
      };
      expect(got).toEqual({ ...c.expect, ...(c.expect.message === undefined ? {} : { message: causesSorted(c.expect.message) }) });
    });

    it('refuses a CRD whose rule does not compile, naming the rule', async () => {
      const bad = structuredClone(SPROCKET_CRD);
      (bad['metadata'] as Json)['name'] = `badrules.${SCHEMA_GROUP}`;
      const spec = bad['spec'] as Json;
      spec['names'] = { plural: 'badrules', singular: 'badrule', kind: 'BadRule', listKind: 'BadRuleList' };
      const schema = ((spec['versions'] as Json[])[0]!['schema'] as Json)['openAPIV3Schema'] as Json;
      ((schema['properties'] as Json)['spec'] as Json)['x-kubernetes-validations'] = [{ rule: 'self.minReplicas <=' }];
      const r = await kubeRequest(ctx.kc, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: bad });
      expect(r.status).toBe(422);
      expect(r.json['message']).toContain(
        `CustomResourceDefinition.apiextensions.k8s.io "badrules.${SCHEMA_GROUP}" is invalid: spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value:`,
      );
      expect(r.json['message']).toContain('compilation failed');
    });
  });
  describe('CRD schemas: defaults on read', () => {
    it('shows a default added to the CRD on an object stored before it, its resourceVersion unchanged', async () => {
      const crd = structuredClone(SPROCKET_CRD);
      (crd['metadata'] as Json)['name'] = `latedefaults.${SCHEMA_GROUP}`;
      const spec = crd['spec'] as Json;
      spec['names'] = { plural: 'latedefaults', singular: 'latedefault', kind: 'LateDefault', listKind: 'LateDefaultList' };
      const version = (spec['versions'] as Json[])[0]!;
      const specSchema = (properties: Json): Json => ({
        openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } },
      });
      version['schema'] = specSchema({ size: { type: 'integer' } });
      const crdPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
      const created = await kubeRequest(ctx.kc, 'POST', crdPath, { body: crd });
      expect(created.status).toBe(201);
      const path = `/apis/${SCHEMA_GROUP}/v1/namespaces/${await ctx.namespace('late')}/latedefaults`;
      await waitUntil(async () => (await kubeRequest(ctx.kc, 'GET', path)).status === 200, 'latedefaults served', 30_000);
      const body = { apiVersion: `${SCHEMA_GROUP}/v1`, kind: 'LateDefault', metadata: { name: 'old' }, spec: { size: 1 } };
      const stored = await kubeRequest(ctx.kc, 'POST', path, { body });
      expect(stored.status).toBe(201);
      expect(stored.json['spec']).toEqual({ size: 1 });

      const live = await kubeRequest(ctx.kc, 'GET', `${crdPath}/latedefaults.${SCHEMA_GROUP}`);
      ((live.json['spec'] as Json)['versions'] as Json[])[0]!['schema'] = specSchema({
        size: { type: 'integer' },
        mode: { type: 'string', default: 'fast' },
      });
      const updated = await kubeRequest(ctx.kc, 'PUT', `${crdPath}/latedefaults.${SCHEMA_GROUP}`, { body: live.json });
      expect(updated.status).toBe(200);
      let read: Json = {};
      await waitUntil(
        async () => {
          read = (await kubeRequest(ctx.kc, 'GET', `${path}/old`)).json;
          return (read['spec'] as Json | undefined)?.['mode'] !== undefined;
        },
        'the new default on the stored object',
        30_000,
      );
      expect(read['spec']).toEqual({ size: 1, mode: 'fast' });
      expect((read['metadata'] as Json)['resourceVersion']).toBe((stored.json['metadata'] as Json)['resourceVersion']);
      const listed = (await kubeRequest(ctx.kc, 'GET', path)).json;
      expect(((listed['items'] as Json[])[0]!['spec'] as Json)['mode']).toBe('fast');
    });
  });
}
