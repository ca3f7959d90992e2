import { afterEach, describe, expect, it } from '@jest/globals';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { PASS_SPAN_NAME, tracing, type GroupVersionResource } from '@protean/core';
import { createTestController, type TestController } from '@protean/testing';
import { instrumentContainer } from './instrumentContainer.js';

const webapps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };

let t: TestController | undefined;

afterEach(async () => {
  await t?.dispose();
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
});
