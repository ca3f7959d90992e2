import { beforeAll, describe, expect, it } from '@jest/globals';
import { kubeRequest, waitUntil, type Json } from '@protean/envtest';
import { parseWarnings } from '@protean/client';
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
    .split(/, (?=spec\.|<nil>|metadata\.)/)
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
}
