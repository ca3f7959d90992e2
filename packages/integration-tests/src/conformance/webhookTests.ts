import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { kubeRequest, waitUntil, type Json, type KubeResponse } from '@protean/envtest';
import { parseWarnings } from '@protean/client/internal';
import { cmPath, metaOf } from './fixtures.js';
import type { SuiteContext } from './SuiteContext.js';
import { ConformanceWebhooks, configMapHook, HOOKED_LABEL, MUTATED_LABEL, summarise } from './webhookCases.js';

const ADMISSION = '/apis/admissionregistration.k8s.io/v1';
const MERGE = 'application/merge-patch+json';
const APPLY = 'application/apply-patch+yaml';

/**
 * Admission webhooks (Validating/MutatingWebhookConfigurations calling a WebhookServer in this process over
 * HTTPS): denials with the webhook's message and code, mutations stored, DELETE rules, object and namespace
 * selectors, failure policies, warnings, and the AdmissionReview the webhook gets. Each test selects its own
 * labelled namespaces; a real server picks a configuration up a moment after it is written, so each test first
 * waits until its configuration is in force.
 */
export function webhookTests(ctx: SuiteContext): void {
  describe('admission webhooks', () => {
    let hooks: ConformanceWebhooks;
    const configurations: string[] = [];
    let tests = 0;

    beforeAll(async () => {
      hooks = await ConformanceWebhooks.start();
    });
    afterAll(async () => {
      for (const path of configurations) await kubeRequest(ctx.kc, 'DELETE', path);
      await hooks?.stop();
    });

    /** A namespace labelled `HOOKED_LABEL=<its name>` (or not labelled); returns its name. */
    async function namespace(prefix: string, labelled = true): Promise<string> {
      const name = `${prefix}-${++tests}`;
      const labels = labelled ? { [HOOKED_LABEL]: name } : {};
      const r = await kubeRequest(ctx.kc, 'POST', '/api/v1/namespaces', {
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } },
      });
      if (r.status !== 201) throw new Error(`creating namespace ${name} answered ${r.status}: ${r.text}`);
      return name;
    }

    async function configure(type: 'Validating' | 'Mutating', name: string, webhooks: Json[]): Promise<void> {
      const resource = `${type.toLowerCase()}webhookconfigurations`;
      const r = await kubeRequest(ctx.kc, 'POST', `${ADMISSION}/${resource}`, {
        body: { apiVersion: 'admissionregistration.k8s.io/v1', kind: `${type}WebhookConfiguration`, metadata: { name }, webhooks },
      });
      if (r.status !== 201) throw new Error(`creating ${type}WebhookConfiguration ${name} answered ${r.status}: ${r.text}`);
      configurations.push(`${ADMISSION}/${resource}/${name}`);
    }

    /** Creates ConfigMaps `<prefix>-<n>` until `done` holds for the answer (the configuration in force); returns it. */
    async function createUntil(ns: string, prefix: string, body: Json, done: (r: KubeResponse) => boolean): Promise<KubeResponse> {
      let n = 0;
      let last: KubeResponse | undefined;
      await waitUntil(
        async () => {
          last = await kubeRequest(ctx.kc, 'POST', cmPath(ns), {
            body: { ...body, metadata: { name: `${prefix}-${n++}`, ...(body['metadata'] as Json) } },
          });
          return done(last);
        },
        `the webhook configuration in force in ${ns}`,
        20_000,
      );
      return last!;
    }

    const status = (r: KubeResponse): Json => ({ status: r.status, body: r.json });

    it("denies a write with the webhook's message and code, and lets a valid one through", async () => {
      const ns = await namespace('hook-deny');
      const hook = 'deny.conformance.protean.dev';
      await configure('Validating', `deny-${ns}`, [configMapHook(hooks, hook, hooks.url('/deny-forbidden'), ns)]);
      const denied = await createUntil(ns, 'bad', { data: { forbidden: 'x' } }, (r) => r.status !== 201);
      expect(status(denied)).toEqual({
        status: 403,
        body: {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          // The webhook gave no reason: none is made up.
          message: `admission webhook "${hook}" denied the request: data.forbidden is not allowed here`,
          code: 403,
        },
      });
      const invalid = await kubeRequest(ctx.kc, 'POST', cmPath(ns), { body: { metadata: { name: 'invalid' }, data: { invalid: 'x' } } });
      expect(status(invalid)).toEqual({
        status: 422,
        body: {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: `admission webhook "${hook}" denied the request: data.invalid is invalid`,
          reason: 'Invalid',
          code: 422,
        },
      });
      const good = await kubeRequest(ctx.kc, 'POST', cmPath(ns), { body: { metadata: { name: 'good' }, data: { fine: 'y' } } });
      expect(good.status).toBe(201);

      // Updates, patches and applies are held to it too.
      const put = await kubeRequest(ctx.kc, 'PUT', cmPath(ns, 'good'), { body: { metadata: { name: 'good' }, data: { forbidden: 'x' } } });
      const patch = await kubeRequest(ctx.kc, 'PATCH', cmPath(ns, 'good'), { body: { data: { forbidden: 'x' } }, contentType: MERGE });
      const apply = await kubeRequest(ctx.kc, 'PATCH', `${cmPath(ns, 'applied')}?fieldManager=conformance`, {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { forbidden: 'x' } },
        contentType: APPLY,
      });
      const message = `admission webhook "${hook}" denied the request: data.forbidden is not allowed here`;
      expect([put, patch, apply].map((r) => [r.status, r.json['message']])).toEqual([
        [403, message],
        [403, message],
        [403, message],
      ]);
      const stored = await kubeRequest(ctx.kc, 'GET', cmPath(ns, 'good'));
      expect(stored.json['data']).toEqual({ fine: 'y' });
      expect((await kubeRequest(ctx.kc, 'GET', cmPath(ns, 'applied'))).status).toBe(404);
    });

    it("stores a mutating webhook's change and answers with it", async () => {
      const ns = await namespace('hook-mutate');
      await configure('Mutating', `default-${ns}`, [
        configMapHook(hooks, 'default.conformance.protean.dev', hooks.url('/default'), ns, { reinvocationPolicy: 'Never' }),
      ]);
      const created = await createUntil(ns, 'cm', { data: { own: 'value' } }, (r) => metaOf(r.json)['labels'] !== undefined);
      expect(created.status).toBe(201);
      expect({ labels: metaOf(created.json)['labels'], data: created.json['data'] }).toEqual({
        labels: { [MUTATED_LABEL]: 'webhook' },
        data: { defaulted: 'yes', own: 'value' },
      });
      const name = metaOf(created.json)['name'] as string;
      const stored = await kubeRequest(ctx.kc, 'GET', cmPath(ns, name));
      expect({ labels: metaOf(stored.json)['labels'], data: stored.json['data'] }).toEqual({
        labels: { [MUTATED_LABEL]: 'webhook' },
        data: { defaulted: 'yes', own: 'value' },
      });
      // On an update too: the webhook puts back what the update took away.
      const updated = await kubeRequest(ctx.kc, 'PUT', cmPath(ns, name), { body: { metadata: { name }, data: { other: 'v' } } });
      expect({ status: updated.status, labels: metaOf(updated.json)['labels'], data: updated.json['data'] }).toEqual({
        status: 200,
        labels: { [MUTATED_LABEL]: 'webhook' },
        data: { defaulted: 'yes', other: 'v' },
      });
    });

    it('denies a delete by a webhook whose rule names DELETE, and keeps the object', async () => {
      const ns = await namespace('hook-delete');
      const hook = 'no-delete.conformance.protean.dev';
      await configure('Validating', `no-delete-${ns}`, [
        configMapHook(hooks, hook, hooks.url('/deny-all'), ns, {
          rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        }),
      ]);
      let n = 0;
      let name = '';
      let deleted: KubeResponse | undefined;
      await waitUntil(
        async () => {
          name = `cm-${n++}`;
          const created = await kubeRequest(ctx.kc, 'POST', cmPath(ns), { body: { metadata: { name } } });
          if (created.status !== 201) throw new Error(`create answered ${created.status}: ${created.text}`);
          deleted = await kubeRequest(ctx.kc, 'DELETE', cmPath(ns, name));
          return deleted.status !== 200;
        },
        'the DELETE webhook in force',
        20_000,
      );
      expect([deleted!.status, deleted!.json['message'], deleted!.json['reason']]).toEqual([
        403,
        `admission webhook "${hook}" denied the request: everything is denied here`,
        undefined,
      ]);
      expect((await kubeRequest(ctx.kc, 'GET', cmPath(ns, name))).status).toBe(200);
    });

    it('calls a webhook only for objects its objectSelector selects (the new object or the old one)', async () => {
      const ns = await namespace('hook-objsel');
      const hook = 'guarded.conformance.protean.dev';
      await configure('Validating', `guarded-${ns}`, [
        configMapHook(hooks, hook, hooks.url('/deny-all'), ns, { objectSelector: { matchLabels: { guarded: 'yes' } } }),
      ]);
      const denied = await createUntil(ns, 'guarded', { metadata: { labels: { guarded: 'yes' } } }, (r) => r.status !== 201);
      expect(denied.status).toBe(403);
      const free = await kubeRequest(ctx.kc, 'POST', cmPath(ns), { body: { metadata: { name: 'free', labels: { guarded: 'no' } } } });
      expect(free.status).toBe(201);
      // The new object selected: denied.
      const labelled = await kubeRequest(ctx.kc, 'PATCH', cmPath(ns, 'free'), {
        body: { metadata: { labels: { guarded: 'yes' } } },
        contentType: MERGE,
      });
      expect([labelled.status, labelled.json['message']]).toEqual([
        403,
        `admission webhook "${hook}" denied the request: everything is denied here`,
      ]);
      const other = await kubeRequest(ctx.kc, 'PATCH', cmPath(ns, 'free'), { body: { data: { a: 'b' } }, contentType: MERGE });
      expect(other.status).toBe(200);
    });

    it('calls a webhook only in namespaces its namespaceSelector selects', async () => {
      const ns = await namespace('hook-nssel');
      const elsewhere = await namespace('hook-nssel-free', false);
      await configure('Validating', `nssel-${ns}`, [configMapHook(hooks, 'nssel.conformance.protean.dev', hooks.url('/deny-all'), ns)]);
      const denied = await createUntil(ns, 'cm', {}, (r) => r.status !== 201);
      expect(denied.status).toBe(403);
      const free = await kubeRequest(ctx.kc, 'POST', cmPath(elsewhere), { body: { metadata: { name: 'free' } } });
      expect(free.status).toBe(201);
    });

    it('lets a write through when a webhook with failurePolicy Ignore cannot be called, and refuses it under Fail', async () => {
      const ignoring = await namespace('hook-ignore');
      await configure('Validating', `ignore-${ignoring}`, [
        configMapHook(hooks, 'unreachable.conformance.protean.dev', hooks.unreachableUrl, ignoring, { failurePolicy: 'Ignore' }),
        configMapHook(hooks, 'deny.conformance.protean.dev', hooks.url('/deny-forbidden'), ignoring),
      ]);
      await createUntil(ignoring, 'bad', { data: { forbidden: 'x' } }, (r) => r.status !== 201);
      const through = await kubeRequest(ctx.kc, 'POST', cmPath(ignoring), { body: { metadata: { name: 'through' } } });
      expect(through.status).toBe(201);

      const failing = await namespace('hook-fail');
      const hook = 'unreachable.conformance.protean.dev';
      await configure('Validating', `fail-${failing}`, [configMapHook(hooks, hook, hooks.unreachableUrl, failing)]);
      const refused = await createUntil(failing, 'cm', {}, (r) => r.status !== 201);
      const message = refused.json['message'] as string;
      const start = `Internal error occurred: failed calling webhook "${hook}": failed to call webhook: Post "${hooks.unreachableUrl}?timeout=5s": `;
      expect({ status: refused.status, reason: refused.json['reason'], start: message.slice(0, start.length) }).toEqual({
        status: 500,
        reason: 'InternalError',
        start,
      });
      expect(message).toMatch(/connect: connection refused$/);
    });

    it("passes a webhook's warnings to the client as Warning headers", async () => {
      const ns = await namespace('hook-warn');
      await configure('Validating', `warn-${ns}`, [configMapHook(hooks, 'warn.conformance.protean.dev', hooks.url('/warn'), ns)]);
      const warned = await createUntil(ns, 'cm', {}, (r) => r.headers['warning'] !== undefined);
      expect(warned.status).toBe(201);
      const header = warned.headers['warning'];
      expect(parseWarnings(Array.isArray(header) ? header.join(', ') : header)).toEqual([
        'first webhook warning',
        'second one, with "quotes"',
      ]);
    });

    it('sends the webhook an AdmissionReview with the operation, kind, resource, objects and options', async () => {
      const ns = await namespace('hook-review');
      await configure('Validating', `record-${ns}`, [
        configMapHook(hooks, 'record.conformance.protean.dev', hooks.url('/record'), ns, {
          rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        }),
      ]);
      await createUntil(ns, 'probe', {}, () => hooks.reviews.some((r) => r.namespace === ns));
      const writes: Array<[string, string, Json | undefined, string | undefined]> = [
        ['POST', cmPath(ns), { metadata: { name: 'x' }, data: { a: '1' } }, undefined],
        ['PUT', cmPath(ns, 'x'), { metadata: { name: 'x' }, data: { a: '2' } }, undefined],
        ['PATCH', `${cmPath(ns, 'x')}?fieldManager=patcher`, { data: { a: '3' } }, MERGE],
        [
          'PATCH',
          `${cmPath(ns, 'y')}?fieldManager=applier`,
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'y' }, data: { b: '1' } },
          APPLY,
        ],
        [
          'PATCH',
          `${cmPath(ns, 'y')}?fieldManager=applier&force=true`,
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'y' }, data: { b: '2' } },
          APPLY,
        ],
        ['DELETE', cmPath(ns, 'x'), undefined, undefined],
      ];
      for (const [method, path, body, contentType] of writes) {
        const r = await kubeRequest(ctx.kc, method, path, {
          ...(body === undefined ? {} : { body }),
          ...(contentType === undefined ? {} : { contentType }),
        });
        expect([method, path, r.status < 300]).toEqual([method, path, true]);
      }
      const got = hooks.reviews.filter((r) => r.namespace === ns && (r.name === 'x' || r.name === 'y')).map(summarise);
      const cm = (name: string, data: Json): Json => ({ kind: 'ConfigMap', apiVersion: 'v1', name, namespace: ns, data });
      const common = {
        kind: { group: '', version: 'v1', kind: 'ConfigMap' },
        resource: { group: '', version: 'v1', resource: 'configmaps' },
        requestKind: { group: '', version: 'v1', kind: 'ConfigMap' },
        requestResource: { group: '', version: 'v1', resource: 'configmaps' },
        subResource: null,
        namespace: ns,
        dryRun: false,
        hasUid: true,
        hasUser: true,
      };
      expect(got).toEqual([
        { ...common, operation: 'CREATE', name: 'x', object: cm('x', { a: '1' }), oldObject: null, options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' } },
        { ...common, operation: 'UPDATE', name: 'x', object: cm('x', { a: '2' }), oldObject: cm('x', { a: '1' }), options: { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' } },
        { ...common, operation: 'UPDATE', name: 'x', object: cm('x', { a: '3' }), oldObject: cm('x', { a: '2' }), options: { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'patcher' } },
        { ...common, operation: 'CREATE', name: 'y', object: cm('y', { b: '1' }), oldObject: null, options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'applier' } },
        { ...common, operation: 'UPDATE', name: 'y', object: cm('y', { b: '2' }), oldObject: cm('y', { b: '1' }), options: { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'applier' } },
        { ...common, operation: 'DELETE', name: 'x', object: null, oldObject: cm('x', { a: '3' }), options: { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' } },
      ]); // prettier-ignore
    });
  });
}
