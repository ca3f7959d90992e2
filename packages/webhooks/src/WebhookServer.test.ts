import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:http2';
import { createServer, type AddressInfo } from 'node:net';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import type { TLSSocket } from 'node:tls';
import { join } from 'node:path';
import { silentLogger } from '@protean/core';
import { waitFor } from '@protean/core/testing';
import { memoryReducerHolders } from '@protean/core/internal';
import type { JsonPatchOperation } from './jsonPatch.js';
import type { AdmissionRequest } from './reviews.js';
import { WebhookServer } from './WebhookServer.js';

let dir: string;

/** A self-signed certificate for 127.0.0.1 (its own CA), made with openssl. */
function certificate(cn: string): { cert: string; key: string } {
  const key = join(dir, `${cn}.key`);
  const cert = join(dir, `${cn}.crt`);
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '1', '-subj', `/CN=${cn}`,
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert,
  ], { stdio: 'ignore' }); // prettier-ignore
  return { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8') };
}

let tls: { cert: string; key: string };
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'protean-webhooks-'));
  tls = certificate('webhook-a');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let server: WebhookServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function started(
  configure: (s: WebhookServer) => void,
  options: { handlerTimeoutMs?: number; maxReviewBytes?: number } = {},
): Promise<string> {
  server = new WebhookServer({ tls, port: 0, host: '127.0.0.1', logger: silentLogger(), ...options });
  configure(server);
  return server.start();
}

/** POSTs over HTTPS/1.1, trusting `ca`; answers the status, the JSON body and the server certificate's CN. */
function post(
  url: string,
  body: string,
  ca = tls.cert,
  method = 'POST',
  contentType = 'application/json',
): Promise<{ status: number; json: Record<string, unknown>; cn: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, ca, headers: { 'content-type': contentType }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const cn = String((res.socket as TLSSocket).getPeerCertificate().subject?.CN ?? '');
        resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>, cn });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

function admissionReview(overrides: Partial<AdmissionRequest> = {}): string {
  const request: AdmissionRequest = {
    uid: 'u-1',
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    name: 'cm',
    namespace: 'demo',
    operation: 'CREATE',
    userInfo: { username: 'alice' },
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'demo', labels: { tier: 'web' } }, data: { a: '1' } },
    ...overrides,
  };
  return JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request });
}

const responseOf = (json: Record<string, unknown>): Record<string, unknown> => json['response'] as Record<string, unknown>;

describe('WebhookServer admission', () => {
  it('answers a validating review with the handler decision, the request uid, status and warnings', async () => {
    const url = await started((s) =>
      s.validate('/validate', (req) =>
        (req.object?.['data'] as Record<string, string>)['a'] === '1'
          ? { allowed: false, message: 'data.a must not be 1', reason: 'Invalid', code: 422, warnings: ['a is deprecated'] }
          : { allowed: true },
      ),
    );
    const denied = await post(`${url}/validate`, admissionReview());
    expect(denied.status).toBe(200);
    expect(denied.json).toMatchObject({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' });
    expect(responseOf(denied.json)).toEqual({
      uid: 'u-1',
      allowed: false,
      status: { code: 422, message: 'data.a must not be 1', reason: 'Invalid' },
      warnings: ['a is deprecated'],
    });
    const allowed = await post(
      `${url}/validate`,
      admissionReview({ uid: 'u-2', object: { apiVersion: 'v1', kind: 'ConfigMap', data: { a: '2' } } }),
    );
    expect(responseOf(allowed.json)).toEqual({ uid: 'u-2', allowed: true });
  });

  it('answers a mutating review with the JSON Patch from the request object to the returned one, and none for no change', async () => {
    const url = await started((s) =>
      s.mutate('/mutate', (req) => {
        const object = structuredClone(req.object!);
        const meta = object['metadata'] as { labels: Record<string, string> };
        if (req.name === 'cm') meta.labels['owner'] = req.userInfo.username ?? '';
        return { object };
      }),
    );
    const patched = responseOf((await post(`${url}/mutate`, admissionReview())).json);
    expect(patched).toMatchObject({ uid: 'u-1', allowed: true, patchType: 'JSONPatch' });
    expect(JSON.parse(Buffer.from(String(patched['patch']), 'base64').toString('utf8')) as JsonPatchOperation[]).toEqual([
      { op: 'add', path: '/metadata/labels/owner', value: 'alice' },
    ]);
    const unchanged = responseOf((await post(`${url}/mutate`, admissionReview({ name: 'other' }))).json);
    expect(unchanged).toEqual({ uid: 'u-1', allowed: true });
  });

  it('denies, naming the webhook, the operation and the object, when a handler throws or passes its timeout', async () => {
    const url = await started(
      (s) =>
        s
          .validate('/throws', () => {
            throw new Error('database unreachable');
          })
          .validate('/hangs', (_req, signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)))),
      { handlerTimeoutMs: 100 },
    );
    expect(responseOf((await post(`${url}/throws`, admissionReview())).json)).toEqual({
      uid: 'u-1',
      allowed: false,
      status: {
        code: 500,
        reason: 'InternalError',
        message: 'webhook /throws failed on CREATE of ConfigMap demo/cm: database unreachable',
      },
    });
    expect(responseOf((await post(`${url}/hangs`, admissionReview())).json)).toEqual({
      uid: 'u-1',
      allowed: false,
      status: { code: 504, reason: 'Timeout', message: 'webhook /hangs did not decide on CREATE of ConfigMap demo/cm within 100 ms' },
    });
  });

  it('refuses what is not a review of its path with 400 and a named error, and keeps serving', async () => {
    const url = await started((s) => s.validate('/v', () => ({ allowed: true })).convert('/c', (o) => o), { maxReviewBytes: 4096 });
    const review = JSON.parse(admissionReview()) as { request: Record<string, unknown> };
    /** The admission review with `request` changed by `edit`. */
    const withRequest = (edit: (r: Record<string, unknown>) => void): string => {
      const copy = structuredClone(review);
      edit(copy.request);
      return JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', ...copy });
    };
    const conversion = (request: unknown): string =>
      JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request });
    const cases: Array<[string, string, string, RegExp]> = [
      ['/v', '', 'MalformedReviewError', /empty/],
      ['/v', '{not json', 'MalformedReviewError', /not JSON/],
      ['/v', '[]', 'MalformedReviewError', /not a AdmissionReview/],
      ['/v', '42', 'MalformedReviewError', /not a AdmissionReview/],
      ['/v', 'null', 'MalformedReviewError', /not a AdmissionReview/],
      [
        '/v',
        JSON.stringify({ apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', request: { uid: 'x' } }),
        'MalformedReviewError',
        /admission\.k8s\.io\/v1beta1/,
      ],
      ['/v', JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }), 'MalformedReviewError', /no request/],
      ['/v', withRequest((r) => (r['uid'] = '')), 'MalformedReviewError', /uid/],
      ['/v', withRequest((r) => (r['uid'] = 7)), 'MalformedReviewError', /uid/],
      ['/v', withRequest((r) => delete r['operation']), 'MalformedReviewError', /no operation/],
      ['/v', withRequest((r) => (r['operation'] = 'PATCH')), 'MalformedReviewError', /"PATCH"/],
      ['/v', withRequest((r) => (r['kind'] = 'ConfigMap')), 'MalformedReviewError', /request\.kind/],
      ['/v', withRequest((r) => delete r['resource']), 'MalformedReviewError', /request\.resource/],
      ['/v', withRequest((r) => (r['object'] = 'a string')), 'MalformedReviewError', /request\.object is not an object/],
      ['/v', withRequest((r) => delete r['object']), 'MalformedReviewError', /CREATE request has no object/],
      ['/v', withRequest((r) => (r['operation'] = 'UPDATE')), 'MalformedReviewError', /UPDATE request has no oldObject/],
      ['/v', withRequest((r) => (r['namespace'] = ['demo'])), 'MalformedReviewError', /request\.namespace/],
      ['/v', withRequest((r) => (r['userInfo'] = 'alice')), 'MalformedReviewError', /userInfo/],
      ['/c', admissionReview(), 'MalformedReviewError', /expected a ConversionReview/],
      ['/c', conversion({ uid: 'c', desiredAPIVersion: 'g/v1' }), 'MalformedReviewError', /desiredAPIVersion and objects/],
      ['/c', conversion({ uid: 'c', desiredAPIVersion: 'g/v1', objects: [{ kind: 'Gadget' }] }), 'MalformedReviewError', /objects\[0\]/],
      ['/v', JSON.stringify({ pad: 'x'.repeat(5000) }), 'ReviewTooLargeError', /more than the 4096/],
    ];
    for (const [path, body, error, message] of cases) {
      const r = await post(`${url}${path}`, body);
      expect({ path, body: body.slice(0, 80), status: r.status, error: r.json['error'] }).toEqual({
        path,
        body: body.slice(0, 80),
        status: 400,
        error,
      });
      expect(String(r.json['message'])).toMatch(new RegExp(`^${path}: `));
      expect(String(r.json['message'])).toMatch(message);
    }
    expect(cases.length).toBeGreaterThanOrEqual(15);
    // A body that is not JSON by its content type is not read.
    const xml = await post(`${url}/v`, '<review/>', tls.cert, 'POST', 'application/xml');
    expect({ status: xml.status, error: xml.json['error'] }).toEqual({ status: 400, error: 'MalformedReviewError' });
    expect((await post(`${url}/nowhere`, admissionReview())).json).toEqual({
      error: 'NotFound',
      message: 'no webhook is served at /nowhere',
    });
    expect((await post(`${url}/v`, '', tls.cert, 'GET')).status).toBe(405);
    expect(responseOf((await post(`${url}/v`, admissionReview())).json)).toEqual({ uid: 'u-1', allowed: true });
    expect(server!.status().routes.find((r) => r.path === '/v')).toMatchObject({ malformed: cases.length - 3 + 2, allowed: 1 });
  });

  it('answers a review in process as over HTTPS, and reports each one to its listeners and its status', async () => {
    const s = new WebhookServer({ tls, port: 0, host: '127.0.0.1', logger: silentLogger() });
    server = s;
    s.validate('/v', (req) => (req.name === 'bad' ? { allowed: false, message: 'bad name', reason: 'Forbidden' } : { allowed: true }));
    const records: unknown[] = [];
    s.onReview((record) => records.push({ ...record, durationMs: typeof record.durationMs }));
    expect(s.readiness().ready()).toEqual({ ready: false, reason: 'the webhook server is not listening yet' });
    // Before start: in process only.
    expect(await s.review('/v', JSON.parse(admissionReview()) as object)).toEqual({
      status: 200,
      body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'u-1', allowed: true } },
    });
    const denied = await s.review('/v', admissionReview({ name: 'bad' }));
    expect(responseOf(denied.body)).toEqual({
      uid: 'u-1',
      allowed: false,
      status: { code: 403, message: 'bad name', reason: 'Forbidden' },
    });
    expect((await s.review('/v', '{')).status).toBe(400);
    expect((await s.review('/w', admissionReview())).status).toBe(404);
    expect(records).toEqual([
      { path: '/v', type: 'validating', outcome: 'allowed', durationMs: 'number' },
      { path: '/v', type: 'validating', outcome: 'denied', reason: 'Forbidden', durationMs: 'number' },
      { path: '/v', type: 'validating', outcome: 'malformed', reason: 'MalformedReviewError', durationMs: 'number' },
      { path: '/w', type: 'unknown', outcome: 'not-found', durationMs: 'number' },
    ]);
    await s.start();
    expect(s.readiness().ready()).toEqual({ ready: true });
    expect(s.status()).toEqual({
      listening: true,
      url: s.url,
      routes: [{ path: '/v', type: 'validating', reviews: 3, allowed: 1, denied: 1, failed: 0, malformed: 1 }],
    });
  });

  it('can start again after a start refused for a port in use, nothing left half started', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    server = new WebhookServer({ tls, port, host: '127.0.0.1', logger: silentLogger() }).validate('/v', () => ({ allowed: true }));
    await expect(server.start()).rejects.toThrow(/EADDRINUSE/);
    expect(server.readiness().ready()).toMatchObject({ ready: false });
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
    const url = await server.start();
    expect(responseOf((await post(`${url}/v`, admissionReview())).json)).toEqual({ uid: 'u-1', allowed: true });
  });

  it('speaks HTTP/2 to a client that offers it (kube-apiserver does)', async () => {
    const url = await started((s) => s.validate('/v', () => ({ allowed: true })));
    const session = connect(url, { ca: tls.cert });
    try {
      const body = await new Promise<string>((resolve, reject) => {
        const stream = session.request({ ':method': 'POST', ':path': '/v', 'content-type': 'application/json' });
        let text = '';
        stream.setEncoding('utf8');
        stream.on('data', (c: string) => (text += c));
        stream.on('end', () => resolve(text));
        stream.on('error', reject);
        stream.end(admissionReview());
      });
      expect(session.alpnProtocol).toBe('h2');
      expect(responseOf(JSON.parse(body) as Record<string, unknown>)).toEqual({ uid: 'u-1', allowed: true });
    } finally {
      session.close();
    }
  });
});

describe('WebhookServer conversion', () => {
  it('converts every object to the desired version, and answers Failure naming the object when one cannot be', async () => {
    const url = await started((s) =>
      s.convert('/convert', (object, desired) => {
        const spec = object['spec'] as { size?: number };
        if (spec.size === undefined) throw new Error('spec.size is required to convert');
        return { ...object, apiVersion: desired, spec: { replicas: spec.size } };
      }),
    );
    const review = (objects: unknown[]): string =>
      JSON.stringify({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        request: { uid: 'c-1', desiredAPIVersion: 'x.dev/v2', objects },
      });
    const one = { apiVersion: 'x.dev/v1', kind: 'Thing', metadata: { name: 'a', namespace: 'n' }, spec: { size: 2 } };
    const ok = await post(`${url}/convert`, review([one]));
    expect(ok.json).toEqual({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      response: {
        uid: 'c-1',
        convertedObjects: [{ apiVersion: 'x.dev/v2', kind: 'Thing', metadata: { name: 'a', namespace: 'n' }, spec: { replicas: 2 } }],
        result: { status: 'Success' },
      },
    });
    const failed = responseOf((await post(`${url}/convert`, review([one, { ...one, spec: {} }]))).json);
    expect(failed).toEqual({
      uid: 'c-1',
      convertedObjects: [],
      result: { status: 'Failure', message: 'conversion webhook /convert: spec.size is required to convert' },
    });
  });
});

describe('WebhookServer certificates', () => {
  it('serves a certificate from files and serves the new one to new connections once the files change', async () => {
    const certFile = join(dir, 'tls.crt');
    const keyFile = join(dir, 'tls.key');
    writeFileSync(certFile, tls.cert);
    writeFileSync(keyFile, tls.key);
    server = new WebhookServer({ tls: { certFile, keyFile }, port: 0, host: '127.0.0.1', logger: silentLogger() });
    server.validate('/v', () => ({ allowed: true }));
    const url = await server.start();
    expect((await post(`${url}/v`, admissionReview())).cn).toBe('webhook-a');

    // As a Secret volume updates: new files moved into place.
    const next = certificate('webhook-b');
    writeFileSync(`${certFile}.new`, next.cert);
    writeFileSync(`${keyFile}.new`, next.key);
    renameSync(`${keyFile}.new`, keyFile);
    renameSync(`${certFile}.new`, certFile);
    await waitFor(async () => (await post(`${url}/v`, admissionReview(), next.cert).catch(() => undefined))?.cn === 'webhook-b', {
      timeoutMs: 5_000,
    });
  });
});

describe('WebhookServer and V8 memory reducer', () => {
  it('holds the memory reducer while it listens, and lets go when it stops', async () => {
    const before = memoryReducerHolders();
    await started(() => {});
    expect(memoryReducerHolders()).toBe(before + 1);
    await server!.stop();
    expect(memoryReducerHolders()).toBe(before);
    await server!.stop();
    expect(memoryReducerHolders()).toBe(before);
  });
});
