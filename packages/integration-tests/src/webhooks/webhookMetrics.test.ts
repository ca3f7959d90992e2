import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@protean/core';
import { instrumentContainer, type MetricsServer, type ProteanMetrics } from '@protean/metrics';
import { type StatusPageStatus } from '@protean/metrics/internal';
import { admissionReview, createTestController, type TestController } from '@protean/testing';
import { WebhookServer } from '@protean/webhooks';

/*
 * A WebhookServer instrumented by instrumentContainer({ webhooks }): its reviews counted by outcome and
 * reason on /metrics, its readiness on /readyz, its paths and counts on the status page's JSON.
 */

let dir: string;
let webhooks: WebhookServer;
let metrics: MetricsServer;
let t: TestController;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'protean-webhook-metrics-'));
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'tls.key'), '-out', join(dir, 'tls.crt'),
  ], { stdio: 'ignore' }); // prettier-ignore
  webhooks = new WebhookServer({
    tls: { cert: readFileSync(join(dir, 'tls.crt'), 'utf8'), key: readFileSync(join(dir, 'tls.key'), 'utf8') },
    port: 0,
    host: '127.0.0.1',
    handlerTimeoutMs: 50,
    logger: silentLogger(),
  });
  webhooks
    .validate('/v', (req) => (req.name === 'bad' ? { allowed: false, message: 'no', reason: 'Invalid' } : { allowed: true }))
    .validate('/hang', (_req, signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))));
  let instrumented: ProteanMetrics | undefined;
  t = createTestController({
    configure: (container) => {
      instrumented = instrumentContainer(container, { processMetrics: false, statusPage: true, webhooks });
    },
  });
  await t.start();
  metrics = await instrumented!.serve();
});

afterAll(async () => {
  await metrics?.stop();
  await t?.dispose();
  await webhooks?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A CREATE of ConfigMap demo/<name>, as kube-apiserver sends it (@protean/testing's fixture). */
function review(name: string): object {
  const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'demo' } };
  return admissionReview({ resource: { group: '', version: 'v1', resource: 'configmaps' }, object });
}

const get = async (path: string): Promise<{ status: number; text: string }> => {
  const r = await fetch(`${metrics.url}${path}`);
  return { status: r.status, text: await r.text() };
};

/** The value of one sample line of the exposition, or undefined when absent. */
function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

describe('a WebhookServer instrumented with the controller', () => {
  it('counts reviews by outcome and denials by reason, gates /readyz on listening, and shows its paths on the status page', async () => {
    const before = await get('/readyz');
    expect(before.status).toBe(503);
    expect(before.text).toContain('webhooks');
    await webhooks.start();
    expect((await get('/readyz')).status).toBe(200);

    await webhooks.review('/v', review('good'));
    await webhooks.review('/v', review('good-too'));
    await webhooks.review('/v', review('bad'));
    await webhooks.review('/v', '{');
    await webhooks.review('/hang', review('slow'));

    const text = (await get('/metrics')).text;
    const total = 'dynamic_controller_webhook_requests_total';
    expect(sample(text, total, 'path="/v",type="validating",outcome="allowed"')).toBe(2);
    expect(sample(text, total, 'path="/v",type="validating",outcome="denied"')).toBe(1);
    expect(sample(text, total, 'path="/v",type="validating",outcome="malformed"')).toBe(1);
    expect(sample(text, total, 'path="/hang",type="validating",outcome="timeout"')).toBe(1);
    const denials = 'dynamic_controller_webhook_denials_total';
    expect(sample(text, denials, 'path="/v",reason="Invalid"')).toBe(1);
    expect(sample(text, denials, 'path="/v",reason="MalformedReviewError"')).toBe(1);
    expect(sample(text, denials, 'path="/hang",reason="Timeout"')).toBe(1);
    expect(sample(text, 'dynamic_controller_webhook_request_duration_seconds_count', 'path="/v",type="validating"')).toBe(4);

    const status = JSON.parse((await get('/statusz/status.json')).text) as StatusPageStatus;
    expect(status.webhooks).toEqual({
      listening: true,
      url: webhooks.url,
      routes: [
        { path: '/v', type: 'validating', reviews: 4, allowed: 2, denied: 1, failed: 0, malformed: 1 },
        { path: '/hang', type: 'validating', reviews: 1, allowed: 0, denied: 0, failed: 1, malformed: 0 },
      ],
    });
  });
});
