import { describe, expect, it } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import { AlreadyOwnedError, applyOwned, KubeClient, KubeConfigTransport, type KubeObject } from '@protean/client';
import type { InstanceWatcher } from '@protean/core';
import { kubeRequest, type Json, type KubeResponse } from '@protean/envtest';
import { cmPath, crPath, GROUP, metaOf } from './fixtures.js';
import type { SuiteContext } from './SuiteContext.js';

const APPLY = 'application/apply-patch+yaml';
const MERGE = 'application/merge-patch+json';
const configmaps = { group: '', version: 'v1', resource: 'configmaps' };

/** A server-side apply whose body is the text given (YAML), not JSON. */
async function applyText(kc: KubeConfig, path: string, manager: string, text: string): Promise<KubeResponse> {
  const transport = new KubeConfigTransport(kc);
  try {
    const res = await transport.send({
      method: 'PATCH',
      path: `${path}?fieldManager=${manager}`,
      headers: { 'content-type': APPLY, accept: 'application/json' },
      body: text,
      signal: undefined,
    });
    return { status: res.status, headers: {}, text: res.body, json: JSON.parse(res.body) as Json };
  } finally {
    transport.close();
  }
}

function apply(kc: KubeConfig, path: string, manager: string, body: Json, force = false): Promise<KubeResponse> {
  return kubeRequest(kc, 'PATCH', `${path}?fieldManager=${manager}${force ? '&force=true' : ''}`, { body, contentType: APPLY });
}

interface OwnerRef {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
}

/** Two Widgets to own things, and references to them. */
async function owners(ctx: SuiteContext, ns: string): Promise<{ a: OwnerRef; b: OwnerRef }> {
  const make = async (name: string): Promise<OwnerRef> => {
    const r = await kubeRequest(ctx.kc, 'POST', crPath('widgets', ns), {
      body: { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name }, spec: {} },
    });
    return { apiVersion: `${GROUP}/v1`, kind: 'Widget', name, uid: metaOf(r.json)['uid'] as string };
  };
  return { a: await make('a'), b: await make('b') };
}

const controller = (ref: OwnerRef): OwnerRef => ({ ...ref, controller: true });

/**
 * The 422 kube-apiserver answers for a second controller reference (`b`'s after `a`'s) on ConfigMap `name`: the
 * cause once for a create, four times for an update, patch or apply (its update path validates the new metadata
 * four times), the message naming it once.
 */
function twoControllers(name: string, a: OwnerRef, b: OwnerRef, times: 1 | 4): Json {
  const problem =
    `Invalid value: ${JSON.stringify([controller(a), controller(b)])}: ` +
    'Only one reference can have Controller set to true. Found "true" in references for Widget/a and Widget/b';
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    reason: 'Invalid',
    code: 422,
    message: `ConfigMap "${name}" is invalid: metadata.ownerReferences: ${problem}`,
    details: {
      name,
      kind: 'ConfigMap',
      causes: Array.from({ length: times }, () => ({ reason: 'FieldValueInvalid', message: problem, field: 'metadata.ownerReferences' })),
    },
  };
}

/** Owner references and who may hold them: one controller, merged by uid under server-side apply; YAML apply bodies. */
export function ownershipTests(ctx: SuiteContext): void {
  describe('owner references and apply bodies', () => {
    it('reads a server-side apply body written in YAML (201), with comments, block text and YAML 1.1 booleans', async () => {
      const ns = await ctx.namespace('yaml');
      const text = [
        '# applied as YAML, as kubectl sends it',
        `apiVersion: ${GROUP}/v1`,
        'kind: Widget',
        'metadata:',
        '  name: yml',
        '  labels:',
        '    tier: "backend"',
        'spec:',
        '  size: 3',
        '  enabled: yes',
        '  note: |',
        '    two',
        '    lines',
        '  tags: [a, b]',
        '',
      ].join('\n');
      const created = await applyText(ctx.kc, crPath('widgets', ns, 'yml'), 'alice', text);
      expect(created.status).toBe(201);
      expect(created.json).toMatchObject({
        kind: 'Widget',
        metadata: { name: 'yml', namespace: ns, labels: { tier: 'backend' } },
        spec: { size: 3, enabled: true, note: 'two\nlines\n', tags: ['a', 'b'] },
      });
      const again = await applyText(ctx.kc, crPath('widgets', ns, 'yml'), 'alice', text);
      expect(again.status).toBe(200);
      expect(metaOf(again.json)['resourceVersion']).toBe(metaOf(created.json)['resourceVersion']);
      const broken = await applyText(ctx.kc, crPath('widgets', ns, 'yml'), 'alice', 'spec: [unclosed\n');
      expect(broken.status).toBe(400);
    });

    it('refuses a second controller reference with 422 on create, replace and merge patch, and keeps the first', async () => {
      const ns = await ctx.namespace('owners');
      const { a, b } = await owners(ctx, ns);
      const both = await kubeRequest(ctx.kc, 'POST', cmPath(ns), {
        body: { metadata: { name: 'two', ownerReferences: [controller(a), controller(b)] } },
      });
      expect(both.json).toEqual(twoControllers('two', a, b, 1));
      const created = await kubeRequest(ctx.kc, 'POST', cmPath(ns), {
        body: { metadata: { name: 'c', ownerReferences: [controller(a)] } },
      });
      expect(created.status).toBe(201);
      const replaced = await kubeRequest(ctx.kc, 'PUT', cmPath(ns, 'c'), {
        body: { ...created.json, metadata: { ...metaOf(created.json), ownerReferences: [controller(a), controller(b)] } },
      });
      expect(replaced.json).toEqual(twoControllers('c', a, b, 4));
      const patched = await kubeRequest(ctx.kc, 'PATCH', cmPath(ns, 'c'), {
        body: { metadata: { ownerReferences: [controller(a), controller(b)] } },
        contentType: MERGE,
      });
      expect(patched.json).toEqual(twoControllers('c', a, b, 4));
      const got = await kubeRequest(ctx.kc, 'GET', cmPath(ns, 'c'));
      expect(metaOf(got.json)['ownerReferences']).toEqual([controller(a)]);
    });

    it('merges an applied controller reference into the live list by uid, so taking over a child is a 422, forced or not', async () => {
      const ns = await ctx.namespace('owners');
      const { a, b } = await owners(ctx, ns);
      await kubeRequest(ctx.kc, 'POST', `${cmPath(ns)}?fieldManager=first`, {
        body: { metadata: { name: 'c', ownerReferences: [controller(a)] }, data: { k: 'v' } },
      });
      const takeOver = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', ownerReferences: [controller(b)] } };
      expect((await apply(ctx.kc, cmPath(ns, 'c'), 'second', takeOver)).json).toEqual(twoControllers('c', a, b, 4));
      expect((await apply(ctx.kc, cmPath(ns, 'c'), 'second', takeOver, true)).json).toEqual(twoControllers('c', a, b, 4));
      const got = await kubeRequest(ctx.kc, 'GET', cmPath(ns, 'c'));
      expect(metaOf(got.json)['ownerReferences']).toEqual([controller(a)]);
    });

    it('lets two appliers share the owner references, each owning its item by uid, and removes the one an applier drops', async () => {
      const ns = await ctx.namespace('owners');
      const { a, b } = await owners(ctx, ns);
      const cm = (refs: OwnerRef[]): Json => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 's', ownerReferences: refs } });
      expect((await apply(ctx.kc, cmPath(ns, 's'), 'alice', cm([a]))).status).toBe(201);
      const shared = await apply(ctx.kc, cmPath(ns, 's'), 'bob', cm([controller(b)]));
      expect(shared.status).toBe(200);
      expect(metaOf(shared.json)['ownerReferences']).toEqual([a, controller(b)]);
      const fields = (metaOf(shared.json)['managedFields'] as Json[]).map((e) => [e['manager'], e['fieldsV1']]);
      expect(fields).toEqual([
        ['alice', { 'f:metadata': { 'f:ownerReferences': { [`k:{"uid":"${a.uid}"}`]: {} } } }],
        ['bob', { 'f:metadata': { 'f:ownerReferences': { [`k:{"uid":"${b.uid}"}`]: {} } } }],
      ]);
      const dropped = await apply(ctx.kc, cmPath(ns, 's'), 'alice', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 's' } });
      expect(metaOf(dropped.json)['ownerReferences']).toEqual([controller(b)]);
    });

    it('applyOwned refuses a child another controller owns with AlreadyOwnedError, force or not, and writes nothing', async () => {
      const ns = await ctx.namespace('owners');
      const { a, b } = await owners(ctx, ns);
      const taken = await kubeRequest(ctx.kc, 'POST', cmPath(ns), {
        body: { metadata: { name: 'child', ownerReferences: [controller(a)] }, data: { by: 'a' } },
      });
      const client = new KubeClient({ kubeConfig: ctx.kc, fieldManager: 'b-controller' });
      const watched: string[] = [];
      const watcher: InstanceWatcher = { watch: async (req) => void watched.push(req.nodeId), done: () => undefined };
      const ownerB: KubeObject = { apiVersion: b.apiVersion, kind: b.kind, metadata: { name: b.name, namespace: ns, uid: b.uid } };
      const child = (): KubeObject & { data: Record<string, string> } => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'child', namespace: ns },
        data: { by: 'b' },
      });
      try {
        for (const force of [false, true]) {
          const err = await applyOwned(client, watcher, configmaps, ownerB, child(), { nodeId: 'child', force }).catch((e: unknown) => e);
          expect(err).toBeInstanceOf(AlreadyOwnedError);
          expect(err).toMatchObject({ object: `ConfigMap ${ns}/child`, existing: { kind: 'Widget', name: 'a', uid: a.uid } });
          expect((err as Error).message).toContain(`ConfigMap ${ns}/child is already controlled by Widget a (uid ${a.uid}`);
        }
      } finally {
        client.close();
      }
      const got = await kubeRequest(ctx.kc, 'GET', cmPath(ns, 'child'));
      expect(metaOf(got.json)['resourceVersion']).toBe(metaOf(taken.json)['resourceVersion']);
      expect(watched).toEqual(['child', 'child']);
    });
  });
}
