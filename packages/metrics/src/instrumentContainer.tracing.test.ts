import { afterEach, describe, expect, it } from '@jest/globals';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { PASS_SPAN_NAME, tracing, type GroupVersionResource } from '@protean/core';
import { createTestController, type TestController } from '@protean/testing';
import { instrumentContainer } from './instrumentContainer.js';
import type { MetricsServer } from './MetricsServer.js';
import type { StatusPageStatus } from './statusPage/controllerStatusPage.js';
import { RecentPassesRecorder } from './tracing/RecentPassesRecorder.js';

const webapps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };

let t: TestController | undefined;
let server: MetricsServer | undefined;

afterEach(async () => {
  await t?.dispose();
  await server?.stop();
  server = undefined;
  trace.disable();
  tracing.refresh();
});

describe('instrumentContainer with tracing on', () => {
  it("passes the coordinator's routing trigger through its counting enqueue, so the pass still links the routed event", async () => {
    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    t = createTestController({ configure: (container) => void instrumentContainer(container, { processMetrics: false }) });
    t.source.add(webapps, { namespace: 'ns', name: 'a' });
    t.source.add(configmaps, { namespace: 'ns', name: 'env' });
    let passes = 0;
    await t.start();
    await t.register(webapps, async (_, ctx) => {
      await ctx.watcher.watch({ nodeId: 'env', gvr: configmaps, namespace: 'ns', name: 'env' });
      passes++;
    });
    await t.waitFor(() => passes === 1);
    t.source.update(configmaps, { namespace: 'ns', name: 'env', labels: { v: '2' } });
    await t.waitFor(() => exporter.getFinishedSpans().filter((s) => s.name === PASS_SPAN_NAME).length === 2);
    const second = exporter.getFinishedSpans().filter((s) => s.name === PASS_SPAN_NAME)[1]!;
    expect(second.links.map((l) => l.attributes)).toEqual([
      expect.objectContaining({ 'protean.trigger.source': 'live', 'protean.trigger.name': 'env', 'protean.trigger.watches': ['env'] }),
    ]);
  });

  it("serves the recorder's passes on the status page: the routed event with the watch it matched, and the pass's request span", async () => {
    const recentPasses = new RecentPassesRecorder();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [recentPasses] }));
    let metrics: ReturnType<typeof instrumentContainer> | undefined;
    t = createTestController({
      configure: (container) => void (metrics = instrumentContainer(container, { processMetrics: false, statusPage: true, recentPasses })),
    });
    t.source.add(webapps, { namespace: 'ns', name: 'a' });
    t.source.add(configmaps, { namespace: 'ns', name: 'env' });
    let passes = 0;
    await t.start();
    await t.register(webapps, async (_, ctx) => {
      await ctx.watcher.watch({ nodeId: 'env', gvr: configmaps, namespace: 'ns', name: 'env' });
      // What a @protean/client request made with ctx.signal starts.
      tracing.startSpan('APPLY configmaps', { kind: 'client', parent: ctx.signal })?.end();
      passes++;
    });
    await t.waitFor(() => passes === 1);
    t.source.update(configmaps, { namespace: 'ns', name: 'env', labels: { v: '2' } });
    await t.waitFor(() => recentPasses.passes().length === 2);
    server = await metrics!.serve();
    const status = (await (await fetch(`${server.url}/statusz/status.json`)).json()) as StatusPageStatus;
    expect(status.recentPasses?.tracing).toBe(true);
    const [second, first] = status.recentPasses?.passes ?? [];
    expect(first?.triggers.map((tr) => tr.source)).toEqual(['initial-list']);
    expect(second).toMatchObject({ parent: 'demo.protean.dev/v1/webapps', namespace: 'ns', name: 'a', outcome: 'success' });
    expect(second?.triggers).toEqual([
      expect.objectContaining({
        source: 'live',
        gvr: '/v1/configmaps',
        namespace: 'ns',
        name: 'env',
        type: 'update',
        resourceVersion: '3',
        watches: ['env'],
      }),
    ]);
    expect(second?.spans.map((s) => s.name)).toEqual(['APPLY configmaps']);
    expect(second?.watches).toEqual(['env=configmaps ns/env']);
  });
});
