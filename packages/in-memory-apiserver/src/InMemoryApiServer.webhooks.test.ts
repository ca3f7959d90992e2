import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryApiServer } from './InMemoryApiServer.js';

/** A self-signed certificate for 127.0.0.1 (its own CA), made with openssl. */
function certificate(dir: string, cn: string): { cert: string; key: string } {
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '1', '-subj', `/CN=${cn}`,
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, `${cn}.key`), '-out', join(dir, `${cn}.crt`),
  ], { stdio: 'ignore' }); // prettier-ignore
  return { cert: readFileSync(join(dir, `${cn}.crt`), 'utf8'), key: readFileSync(join(dir, `${cn}.key`), 'utf8') };
}

type Review = {
  uid: string;
  operation: string;
  object: Record<string, unknown> | null;
  oldObject: Record<string, unknown> | null;
} & Record<string, unknown>;
/** A webhook's answer to a review: `response` without its uid, or 'hang' to never answer. */
type Handler = (req: Review) => Record<string, unknown> | 'hang' | Promise<Record<string, unknown>>;

let dir: string;
let tls: { cert: string; key: string };
let other: { cert: string; key: string };
let hooks: Server;
let hooksUrl: string;
const handlers = new Map<string, Handler>();
const reviews: Array<{ path: string; request: Review }> = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'in-memory-webhooks-'));
  tls = certificate(dir, 'hooks');
  other = certificate(dir, 'other');
  hooks = createServer(tls, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      const request = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { request: Review }).request;
      reviews.push({ path, request });
      void Promise.resolve(handlers.get(path)?.(request) ?? { allowed: true }).then((response) => {
        if (response === 'hang') return;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: request.uid, ...response } }),
        );
      });
    });
  });
  await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
  hooksUrl = `https://127.0.0.1:${(hooks.address() as AddressInfo).port}`;
});
afterAll(async () => {
  hooks.closeAllConnections();
  await new Promise<void>((resolve) => hooks.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

let server: InMemoryApiServer;
beforeEach(async () => {
  server = await InMemoryApiServer.start();
  handlers.clear();
  reviews.length = 0;
});
afterEach(async () => {
  await server.stop();
});

async function call(
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const init: RequestInit = { method, headers: { 'content-type': contentType } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(`${server.url}${path}`, init);
  return { status: res.status, json: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

const ADMISSION = '/apis/admissionregistration.k8s.io/v1';
const CMS = '/api/v1/namespaces/default/configmaps';
const CA_BUNDLE = (): string => Buffer.from(tls.cert).toString('base64');

function webhook(name: string, path: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    clientConfig: { url: `${hooksUrl}${path}`, caBundle: CA_BUNDLE() },
    rules: [{ operations: ['CREATE', 'UPDATE', 'DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...extra,
  };
}

async function configure(type: 'Validating' | 'Mutating', name: string, webhooks: Array<Record<string, unknown>>): Promise<void> {
  const r = await call('POST', `${ADMISSION}/${type.toLowerCase()}webhookconfigurations`, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: `${type}WebhookConfiguration`,
    metadata: { name },
    webhooks,
  });
  expect(r.status).toBe(201);
}

describe('admission webhooks', () => {
  it('calls no webhook without a configuration, and never for the direct methods', async () => {
    expect((await call('POST', CMS, { metadata: { name: 'a' } })).status).toBe(201);
    await configure('Validating', 'deny', [webhook('deny.example.com', '/deny')]);
    handlers.set('/deny', () => ({ allowed: false, status: { code: 403, message: 'no' } }));
    server.create({ group: '', version: 'v1', resource: 'configmaps' }, { metadata: { name: 'direct', namespace: 'default' } });
    expect(reviews).toEqual([]);
    expect((await call('POST', CMS, { metadata: { name: 'b' } })).status).toBe(403);
    expect(reviews.map((r) => r.path)).toEqual(['/deny']);
  });

  it('stores a configuration with the defaults kube-apiserver fills in', async () => {
    await configure('Mutating', 'm', [webhook('m.example.com', '/m')]);
    const stored = await call('GET', `${ADMISSION}/mutatingwebhookconfigurations/m`);
    expect((stored.json['webhooks'] as Array<Record<string, unknown>>)[0]).toMatchObject({
      failurePolicy: 'Fail',
      matchPolicy: 'Equivalent',
      namespaceSelector: {},
      objectSelector: {},
      timeoutSeconds: 10,
      reinvocationPolicy: 'Never',
    });
  });

  it('mutates first (patches in order), then defaults and validates, then calls the validating webhooks with the object to store', async () => {
    await configure('Mutating', 'b-second', [webhook('second.example.com', '/second')]);
    await configure('Mutating', 'a-first', [webhook('first.example.com', '/first')]);
    await configure('Validating', 'v', [webhook('check.example.com', '/check')]);
    const patch = (ops: unknown[]): Record<string, unknown> => ({
      allowed: true,
      patchType: 'JSONPatch',
      patch: Buffer.from(JSON.stringify(ops)).toString('base64'),
    });
    handlers.set('/first', () => patch([{ op: 'add', path: '/data', value: { from: 'first' } }]));
    // The second sees the first's change.
    handlers.set('/second', (req) =>
      patch([{ op: 'add', path: '/data/seen', value: JSON.stringify((req.object as { data: unknown }).data) }]),
    );
    const r = await call('POST', `${CMS}?fieldManager=me`, { metadata: { generateName: 'cm-' } });
    expect(r.status).toBe(201);
    expect(r.json['data']).toEqual({ from: 'first', seen: '{"from":"first"}' });
    expect(reviews.map((x) => x.path)).toEqual(['/first', '/second', '/check']);
    const [first, , check] = reviews.map((x) => x.request);
    // Mutating: before the name is generated and system fields are set.
    expect(first!['name']).toBeUndefined();
    expect((first!.object!['metadata'] as Record<string, unknown>)['uid']).toBeUndefined();
    // Validating: the object as it is stored.
    const stored = (await call('GET', `${CMS}/${(r.json['metadata'] as { name: string }).name}`)).json;
    expect(check!['name']).toBe((stored['metadata'] as { name: string }).name);
    expect((check!.object!['metadata'] as Record<string, unknown>)['uid']).toBe((stored['metadata'] as { uid: string }).uid);
    expect(check).toMatchObject({
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      namespace: 'default',
      operation: 'CREATE',
      userInfo: { username: 'admin' },
      oldObject: null,
      dryRun: false,
      options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'me' },
    });
    expect(stored['data']).toEqual(r.json['data']);
  });

  it("denies with the webhook's code and message; Warning headers carry the warnings of every webhook called", async () => {
    await configure('Mutating', 'm', [webhook('m.example.com', '/m')]);
    await configure('Validating', 'v', [webhook('v.example.com', '/v')]);
    handlers.set('/m', () => ({ allowed: true, warnings: ['from m'] }));
    handlers.set('/v', (req) =>
      (req.object?.['data'] as Record<string, string> | undefined)?.['bad'] === undefined
        ? { allowed: true, warnings: ['from v'] }
        : { allowed: false, status: { code: 409, reason: 'Conflict', message: 'bad is bad' } },
    );
    const ok = await call('POST', CMS, { metadata: { name: 'ok' } });
    expect(ok.status).toBe(201);
    expect(ok.headers.get('warning')).toBe('299 - "from m", 299 - "from v"');
    const bad = await call('POST', CMS, { metadata: { name: 'bad' }, data: { bad: 'x' } });
    expect(bad.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'admission webhook "v.example.com" denied the request: bad is bad',
      reason: 'Conflict',
      code: 409,
    });
    expect((await call('GET', `${CMS}/bad`)).status).toBe(404);
  });

  it('fails a write under failurePolicy Fail when the webhook cannot be called, and skips it under Ignore', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['refused', { clientConfig: { url: 'https://127.0.0.1:1/x', caBundle: CA_BUNDLE() } }, /Post "https:\/\/127\.0\.0\.1:1\/x\?timeout=10s": dial tcp 127\.0\.0\.1:1: connect: connection refused$/],
      ['untrusted', { clientConfig: { url: `${hooksUrl}/x`, caBundle: Buffer.from(other.cert).toString('base64') } }, /x509: certificate signed by unknown authority$/],
      ['service', { clientConfig: { service: { name: 's', namespace: 'default' } } }, /clientConfig\.service is not supported by the in-memory API server/],
      ['hanging', { clientConfig: { url: `${hooksUrl}/hang`, caBundle: CA_BUNDLE() }, timeoutSeconds: 1 }, /\?timeout=1s": context deadline exceeded$/],
    ]; // prettier-ignore
    handlers.set('/hang', () => 'hang');
    for (const [name, override, expected] of cases) {
      await configure('Validating', `fail-${name}`, [
        webhook(`${name}.example.com`, '/x', { ...override, objectSelector: { matchLabels: { case: name } } }),
      ]);
      await configure('Validating', `ignore-${name}`, [
        webhook(`${name}.example.com`, '/x', {
          ...override,
          failurePolicy: 'Ignore',
          objectSelector: { matchLabels: { case: `${name}-ignored` } },
        }),
      ]);
      const failed = await call('POST', CMS, { metadata: { name: `${name}-1`, labels: { case: name } } });
      expect([name, failed.status, failed.json['reason']]).toEqual([name, 500, 'InternalError']);
      expect(failed.json['message']).toMatch(new RegExp(`^Internal error occurred: failed calling webhook "${name}\\.example\\.com": `));
      expect(failed.json['message']).toMatch(expected);
      const ignored = await call('POST', CMS, { metadata: { name: `${name}-2`, labels: { case: `${name}-ignored` } } });
      expect([name, ignored.status]).toEqual([name, 201]);
    }
  });

  it('calls webhooks on replace, patch, apply, status, delete and delete-collection, with the old object', async () => {
    server.registerResource({
      group: 'example.com',
      version: 'v1',
      resource: 'widgets',
      kind: 'Widget',
      namespaced: true,
      hasStatusSubresource: true,
    });
    await configure('Validating', 'v', [
      webhook('v.example.com', '/v', {
        rules: [
          {
            operations: ['*'],
            apiGroups: ['', 'example.com'],
            apiVersions: ['v1'],
            resources: ['configmaps', 'widgets', 'widgets/status'],
          },
        ],
      }),
    ]);
    await call('POST', CMS, { metadata: { name: 'a' }, data: { v: '1' } });
    await call('PUT', `${CMS}/a`, { metadata: { name: 'a' }, data: { v: '2' } });
    await call('PATCH', `${CMS}/a`, { data: { v: '3' } }, 'application/merge-patch+json');
    await call(
      'PATCH',
      `${CMS}/b?fieldManager=x`,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' } },
      'application/apply-patch+yaml',
    );
    await call('DELETE', `${CMS}/a`);
    await call('DELETE', CMS);
    const widgets = '/apis/example.com/v1/namespaces/default/widgets';
    await call('POST', widgets, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } });
    const w = (await call('GET', `${widgets}/w`)).json;
    await call('PUT', `${widgets}/w/status`, { ...w, status: { ok: true } });
    const data = (o: Record<string, unknown> | null): unknown => (o === null ? null : (o['data'] ?? o['status'] ?? {}));
    expect(reviews.map(({ request: r }) => [r.operation, r['name'], r['subResource'] ?? '', data(r.object), data(r.oldObject)])).toEqual([
      ['CREATE', 'a', '', { v: '1' }, null],
      ['UPDATE', 'a', '', { v: '2' }, { v: '1' }],
      ['UPDATE', 'a', '', { v: '3' }, { v: '2' }],
      ['CREATE', 'b', '', {}, null],
      ['DELETE', 'a', '', null, { v: '3' }],
      ['DELETE', 'b', '', null, {}],
      ['CREATE', 'w', '', {}, null],
      ['UPDATE', 'w', 'status', { ok: true }, {}],
    ]);
  });

  it('denies a delete and keeps the object; a write to a webhook configuration is never sent to a webhook', async () => {
    await configure('Validating', 'everything', [
      webhook('all.example.com', '/no', { rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }] }),
    ]);
    await call('POST', CMS, { metadata: { name: 'kept' } });
    await call('POST', CMS, { metadata: { name: 'gone' } });
    handlers.set('/no', () => ({ allowed: true, warnings: ['deleting is risky'] }));
    const allowed = await call('DELETE', `${CMS}/gone`);
    expect([allowed.status, allowed.headers.get('warning')]).toEqual([200, '299 - "deleting is risky"']);
    handlers.set('/no', () => ({ allowed: false, status: { code: 403, message: 'no deleting' } }));
    const denied = await call('DELETE', `${CMS}/kept`);
    expect([denied.status, denied.json['message']]).toEqual([403, 'admission webhook "all.example.com" denied the request: no deleting']);
    expect((await call('DELETE', CMS)).status).toBe(403);
    expect((await call('GET', `${CMS}/kept`)).status).toBe(200);
    expect((await call('DELETE', `${ADMISSION}/validatingwebhookconfigurations/everything`)).status).toBe(200);
    expect((await call('DELETE', `${CMS}/kept`)).status).toBe(200);
  });

  it('starts a write over when its object changed while a webhook looked at it', async () => {
    await configure('Validating', 'v', [
      webhook('v.example.com', '/v', {
        rules: [{ operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      }),
    ]);
    await call('POST', CMS, { metadata: { name: 'a' }, data: { mine: 'x' } });
    const cms = { group: '', version: 'v1', resource: 'configmaps' };
    let calls = 0;
    let theirs = 0;
    handlers.set('/v', () => {
      if (calls++ === 0) server.patch(cms, 'default', 'a', { data: { theirs: String(++theirs) } });
      return { allowed: true };
    });
    const patched = await call('PATCH', `${CMS}/a`, { data: { mine: 'z' } }, 'application/merge-patch+json');
    expect([patched.status, patched.json['data']]).toEqual([200, { mine: 'z', theirs: '1' }]);
    expect(calls).toBe(2);
    // With the resourceVersion of the first read as a precondition, the second try is a conflict.
    calls = 0;
    const rv = ((await call('GET', `${CMS}/a`)).json['metadata'] as { resourceVersion: string }).resourceVersion;
    const put = await call('PUT', `${CMS}/a`, { metadata: { name: 'a', resourceVersion: rv }, data: { mine: 'w' } });
    expect([put.status, put.json['reason']]).toEqual([409, 'Conflict']);
  });

  it("holds a custom resource's mutation to its schema: unknown fields dropped silently, defaults filled in, validation after", async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gizmos.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    properties: { size: { type: 'integer', maximum: 5 }, mode: { type: 'string', default: 'fast' } },
                  },
                },
              },
            },
          },
        ],
      },
    };
    expect((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
    await configure('Mutating', 'm', [
      webhook('m.example.com', '/m', {
        rules: [{ operations: ['CREATE'], apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['gizmos'] }],
      }),
    ]);
    handlers.set('/m', (req) => {
      const spec = (req.object?.['spec'] ?? {}) as { size?: number };
      const ops = [
        { op: 'replace', path: '/spec', value: { size: Math.min(spec.size ?? 0, 5), extra: 'dropped' } },
        { op: 'add', path: '/unknown', value: 1 },
      ];
      return { allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') };
    });
    const gizmos = '/apis/example.com/v1/namespaces/default/gizmos';
    const r = await call('POST', `${gizmos}?fieldValidation=Strict`, {
      apiVersion: 'example.com/v1',
      kind: 'Gizmo',
      metadata: { name: 'g' },
      spec: { size: 9 },
    });
    expect([r.status, r.json['spec'], r.json['unknown'], r.headers.get('warning')]).toEqual([
      201,
      { size: 5, mode: 'fast' },
      undefined,
      null,
    ]);
    // The webhook saw the request decoded: pruned and defaulted.
    expect(reviews[0]!.request.object!['spec']).toEqual({ size: 9, mode: 'fast' });
  });
});
