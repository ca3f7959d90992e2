import { afterEach, describe, expect, it } from '@jest/globals';
import { KubeClient } from '@protean/client';
import type { GroupVersionResource } from '@protean/core';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { createTestController, type TestController } from '@protean/testing';
import { startDemoTracing, type DemoTracing } from './demoTracing.js';

const webapps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };

let t: TestController | undefined;
let tracing: DemoTracing | undefined;
let server: InMemoryApiServer | undefined;

afterEach(async () => {
  await t?.dispose();
  await tracing?.stop();
  await server?.stop();
});

describe('--trace without a collector', () => {
  it('prints each pass as a tree: the pass, what triggered it, and its client requests', async () => {
    const lines: string[] = [];
    tracing = startDemoTracing({}, (line) => lines.push(line));
    server = await InMemoryApiServer.start();
    const client = new KubeClient({ kubeConfig: server.kubeConfig(), fieldManager: 'demo' });
    t = createTestController();
    t.source.add(webapps, { namespace: 'ns', name: 'shop' });
    let passes = 0;
    await t.start();
    await t.register(webapps, async (instance, ctx) => {
      const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name: `${instance.name}-config` } };
      await client.apply(configmaps, cm, { signal: ctx.signal });
      passes++;
    });
    await t.waitFor(() => passes === 1 && lines.some((l) => l.startsWith('pass ')));
    client.close();
    const at = lines.findIndex((l) => l.startsWith('pass '));
    expect(lines[0]).toBe('tracing: printing a span tree per pass (set OTEL_EXPORTER_OTLP_ENDPOINT to export)');
    expect(lines[at]).toMatch(/^pass demo\.protean\.dev\/v1\/webapps ns\/shop success \d+\.\d ms trace [0-9a-f]{32}$/);
    expect(lines[at + 1]).toBe('  ← initial-list add demo.protean.dev/v1/webapps ns/shop');
    expect(lines[at + 2]).toMatch(/^ {2}└ APPLY configmaps ns\/shop-config \d+\.\d ms 201$/);
  });

  it('names the collector it exports to when OTEL_EXPORTER_OTLP_ENDPOINT is set', () => {
    const lines: string[] = [];
    tracing = startDemoTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318/' }, (line) => lines.push(line));
    expect(lines).toEqual(['tracing: exporting spans by OTLP to http://127.0.0.1:4318/v1/traces']);
  });
});
