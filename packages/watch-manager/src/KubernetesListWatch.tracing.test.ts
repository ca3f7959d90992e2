import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { tracing, type GroupVersionResource } from '@protean/core';
import { waitFor } from '@protean/core/testing';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { KubeTestInformer } from './kubeInformer.testkit.js';
import { KubernetesListWatch } from './KubernetesListWatch.js';

/* The informer's spans: one per LIST and one per watch (from its request to its end), never one per event. */

const CONFIGMAPS: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };

let server: InMemoryApiServer;
let exporter: InMemorySpanExporter;
const aborts: AbortController[] = [];

beforeEach(async () => {
  server = await InMemoryApiServer.start();
  exporter = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
});

afterEach(async () => {
  for (const a of aborts.splice(0)) a.abort();
  await server.stop();
  trace.disable();
  tracing.refresh();
});

function run(streamingList: 'always' | 'never'): KubeTestInformer {
  const listWatch = new KubernetesListWatch(CONFIGMAPS, { kubeConfig: server.kubeConfig(), streamingList });
  const informer = new KubeTestInformer(listWatch);
  const abort = new AbortController();
  aborts.push(abort);
  informer.run(abort.signal);
  return informer;
}

const spans = (name: string) => exporter.getFinishedSpans().filter((s) => s.name === name);

describe('KubernetesListWatch: spans', () => {
  it('records a span per LIST and per watch, with the relist and the resourceVersion resumed from, and none per event', async () => {
    server.create(CONFIGMAPS, { metadata: { name: 'a', namespace: 'default' } });
    const informer = run('never');
    await waitFor(() => informer.hasSynced() && server.openWatchCount() === 1);
    for (const name of ['b', 'c', 'd']) server.create(CONFIGMAPS, { metadata: { name, namespace: 'default' } });
    await waitFor(() => informer.list().length === 4);
    expect(spans('protean.informer.list')).toHaveLength(1);
    expect(spans('protean.informer.list')[0]!.attributes).toEqual({
      'protean.informer.gvr': '/v1/configmaps',
      'protean.informer.relist': false,
    });
    expect(spans('protean.informer.watch')).toHaveLength(0); // still open

    server.faults.closeWatches();
    await waitFor(() => spans('protean.informer.watch').length === 1 && server.openWatchCount() === 1);
    const [watch] = spans('protean.informer.watch');
    expect(watch!.attributes['protean.informer.streaming_list']).toBe(false);
    expect(watch!.attributes['protean.informer.from']).toMatch(/^\d+$/);
    expect(exporter.getFinishedSpans()).toHaveLength(2);
  });

  it('marks the watch that streams the initial list', async () => {
    const informer = run('always');
    await waitFor(() => informer.hasSynced() && server.openWatchCount() === 1);
    server.faults.closeWatches();
    await waitFor(() => spans('protean.informer.watch').length === 1);
    expect(spans('protean.informer.watch')[0]!.attributes).toEqual({
      'protean.informer.gvr': '/v1/configmaps',
      'protean.informer.streaming_list': true,
    });
    expect(spans('protean.informer.list')).toHaveLength(0);
  });

  it('ends the open watch span without an error when the informer is stopped (a normal shutdown)', async () => {
    const informer = run('never');
    await waitFor(() => informer.hasSynced() && server.openWatchCount() === 1);
    aborts.splice(0).forEach((a) => a.abort());
    await waitFor(() => spans('protean.informer.watch').length === 1);
    const [watch] = spans('protean.informer.watch');
    expect(watch!.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(watch!.attributes['protean.informer.stopped']).toBe(true);
  });
});
