import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { parseSelector, PASS_SPAN_NAME, RequeueNeeded, tracing, type GroupVersionResource } from '@protean/core';
import { EVENT_SPAN_NAME } from '@protean/core/internal';
import { Deferred, LogRecorder } from '@protean/core/testing';
import { createTestController, type TestController } from '@protean/testing';

const webapps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };

let exporter: InMemorySpanExporter;
let t: TestController | undefined;

beforeEach(() => {
  exporter = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
});

afterEach(async () => {
  await t?.dispose();
  t = undefined;
  trace.disable();
  tracing.refresh();
});

const passes = (): ReadableSpan[] => exporter.getFinishedSpans().filter((s) => s.name === PASS_SPAN_NAME);
const spanById = (id: string): ReadableSpan | undefined => exporter.getFinishedSpans().find((s) => s.spanContext().spanId === id);

/** A handler of webapps ns/a watching ConfigMaps labelled app=shop (node `config`) and ConfigMap ns/env (node `env`). */
function watchingHandler(gates: Map<number, Deferred>) {
  let count = 0;
  return async (_: unknown, ctx: Parameters<Parameters<TestController['register']>[1]>[1]): Promise<void> => {
    const pass = ++count;
    ctx.logger.info({ pass }, 'pass ran');
    await ctx.watcher.watch({ nodeId: 'config', gvr: configmaps, namespace: 'ns', selector: parseSelector('app=shop') });
    await ctx.watcher.watch({ nodeId: 'env', gvr: configmaps, namespace: 'ns', name: 'env' });
    await gates.get(pass)?.promise;
  };
}

describe('pass spans', () => {
  it('names the pass, the instance, the attempt, the watches declared and the outcome, and links the initial-list event', async () => {
    const logs = new LogRecorder('info');
    t = createTestController({ logger: logs.logger });
    t.source.add(webapps, { namespace: 'ns', name: 'a' });
    await t.start();
    await t.register(webapps, watchingHandler(new Map()));
    await t.waitFor(() => passes().length === 1);
    const [pass] = passes();
    expect(pass!.attributes).toMatchObject({
      'protean.parent.gvr': 'demo.protean.dev/v1/webapps',
      'protean.instance.namespace': 'ns',
      'protean.instance.name': 'a',
      'protean.pass.attempt': 1,
      'protean.pass.outcome': 'success',
      'protean.pass.requeue': false,
      'protean.pass.sources': ['initial-list'],
      'protean.pass.watches': ['config=configmaps ns app=shop', 'env=configmaps ns/env'],
    });
    expect(pass!.parentSpanContext).toBeUndefined();
    expect(pass!.links).toHaveLength(1);
    expect(pass!.links[0]!.attributes).toMatchObject({
      'protean.trigger.source': 'initial-list',
      'protean.trigger.gvr': 'demo.protean.dev/v1/webapps',
      'protean.trigger.name': 'a',
      'protean.trigger.type': 'add',
    });
    const event = spanById(pass!.links[0]!.context.spanId);
    expect(event?.name).toBe(EVENT_SPAN_NAME);
    expect(event?.attributes['protean.event.source']).toBe('initial-list');
    const line = logs.find('pass ran')[0]!;
    expect(logs.bindingsOf(line)).toMatchObject({ trace_id: pass!.spanContext().traceId, span_id: pass!.spanContext().spanId });
  });

  it('links a pass deduped from several routed events to every one of them, with the watches each matched', async () => {
    const gates = new Map([[2, new Deferred()]]);
    t = createTestController();
    t.source.add(webapps, { namespace: 'ns', name: 'a' });
    t.source.add(configmaps, { namespace: 'ns', name: 'env', labels: { app: 'shop' } });
    t.source.add(configmaps, { namespace: 'ns', name: 'other', labels: { app: 'shop' } });
    await t.start();
    await t.register(webapps, watchingHandler(gates));
    await t.waitFor(() => passes().length === 1);
    // Pass 2 runs on one event and waits; three events meanwhile make one pass 3.
    t.source.update(configmaps, { namespace: 'ns', name: 'env', labels: { app: 'shop' } });
    await t.waitFor(() => t!.controller.status().queue.inFlight.length === 1);
    const inFlight = t.controller.status().queue.inFlight[0]!;
    t.source.update(configmaps, { namespace: 'ns', name: 'other', labels: { app: 'shop', v: '2' } });
    t.source.update(configmaps, { namespace: 'ns', name: 'env', labels: { app: 'shop', v: '2' } });
    t.source.update(configmaps, { namespace: 'ns', name: 'other', labels: { app: 'gone' } });
    gates.get(2)!.resolve();
    await t.waitFor(() => passes().length === 3);

    const [, second, third] = passes();
    expect(inFlight).toMatchObject({ traceId: second!.spanContext().traceId, spanId: second!.spanContext().spanId });
    expect(second!.links.map((l) => l.attributes)).toEqual([
      expect.objectContaining({
        'protean.trigger.source': 'live',
        'protean.trigger.name': 'env',
        'protean.trigger.watches': ['config', 'env'],
      }),
    ]);
    expect(third!.attributes['protean.pass.triggers']).toBe(3);
    expect(third!.attributes['protean.pass.attempt']).toBe(1);
    const links = third!.links.map((l) => l.attributes!);
    expect(links).toEqual([
      expect.objectContaining({ 'protean.trigger.name': 'other', 'protean.trigger.type': 'update', 'protean.trigger.watches': ['config'] }),
      expect.objectContaining({ 'protean.trigger.name': 'env', 'protean.trigger.watches': ['config', 'env'] }),
      // Left the selector: routed on its old labels.
      expect.objectContaining({ 'protean.trigger.name': 'other', 'protean.trigger.watches': ['config'] }),
    ]);
    const versions = links.map((l) => l['protean.trigger.resource_version']);
    expect(new Set(versions).size).toBe(3);
    for (const link of third!.links) expect(spanById(link.context.spanId)?.attributes['protean.event.type']).toBe('update');
  });

  it('links a requeued pass to the pass that asked, and a retried pass to the pass that failed', async () => {
    t = createTestController({ config: { minRetryDelayMs: 1, maxRetryDelayMs: 1 } });
    t.source.add(webapps, { namespace: 'ns', name: 'a' });
    let count = 0;
    await t.start();
    await t.register(webapps, async () => {
      count++;
      if (count === 1) throw new RequeueNeeded();
      if (count === 2) throw new Error('boom');
    });
    await t.waitFor(() => passes().length === 3);
    const [first, second, third] = passes();
    expect(first!.attributes).toMatchObject({ 'protean.pass.outcome': 'requeue', 'protean.pass.requeue': true });
    expect(second!.links).toEqual([
      expect.objectContaining({ context: first!.spanContext(), attributes: { 'protean.trigger.source': 'requeue' } }),
    ]);
    expect(second!.attributes).toMatchObject({ 'protean.pass.outcome': 'error', 'protean.pass.requeue': true });
    expect(second!.status).toMatchObject({ code: 2, message: 'boom' });
    expect(third!.links).toEqual([
      expect.objectContaining({ context: second!.spanContext(), attributes: { 'protean.trigger.source': 'retry' } }),
    ]);
    expect(third!.attributes).toMatchObject({ 'protean.pass.attempt': 2, 'protean.pass.outcome': 'success' });
  });

  it('records nothing and adds no ids without a tracer provider', async () => {
    trace.disable();
    const logs = new LogRecorder('info');
    const gates = new Map([[1, new Deferred()]]);
    t = createTestController({ logger: logs.logger });
    t.source.add(webapps, { namespace: 'ns', name: 'a' });
    await t.start();
    await t.register(webapps, watchingHandler(gates));
    await t.waitFor(() => t!.controller.status().queue.inFlight.length === 1);
    expect(t.controller.status().queue.inFlight[0]).not.toHaveProperty('traceId');
    gates.get(1)!.resolve();
    await t.waitFor(() => logs.find('pass ran').length === 1);
    expect(logs.bindingsOf(logs.find('pass ran')[0]!)).not.toHaveProperty('trace_id');
    expect(tracing.enabled).toBe(false);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
