import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { context, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { KubeClient } from '@protean/client';
import { tracing, type GroupVersionResource } from '@protean/core';
import { waitFor } from '@protean/core/testing';
import { startKubeApiServer, type KubeApiServer } from '@protean/envtest';
import { startRealController, type RealController } from '../e2e/startRealController.js';
import { JAEGER_OTLP_GRPC, JAEGER_OTLP_HTTP, startJaeger, type JaegerSpan, type JaegerTrace, type RunningJaeger } from './startJaeger.js';

/*
 * One trace from a child's change to the API server's write, read back from a real trace store: kube-apiserver
 * (tracing on, every request sampled) and the controller both export to Jaeger v2 over OTLP.
 */

const SECRETS: GroupVersionResource = { group: '', version: 'v1', resource: 'secrets' };
const CONFIGMAPS: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const SERVICE = 'protean-trace-test';
const NAMESPACE = 'default';

let jaeger: RunningJaeger;
let api: KubeApiServer;
let provider: NodeTracerProvider;
let rc: RealController | undefined;

beforeAll(async () => {
  jaeger = await startJaeger();
  api = await startKubeApiServer({ tracing: { endpoint: JAEGER_OTLP_GRPC } });
  provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': SERVICE }),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url: `${JAEGER_OTLP_HTTP}/v1/traces` }), { scheduledDelayMillis: 200 }),
    ],
  });
  provider.register();
}, 180_000);

afterAll(async () => {
  await rc?.stop();
  await provider?.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
  tracing.refresh();
  await api?.stop();
  await jaeger?.stop();
});

const tag = (span: JaegerSpan, key: string): unknown => span.tags.find((t) => t.key === key)?.value;
const serviceOf = (t: JaegerTrace, span: JaegerSpan): string | undefined => t.processes[span.processID]?.serviceName;

describe('a trace in Jaeger', () => {
  it("holds the routed event's link, the pass, its apply request and kube-apiserver's span for that request", async () => {
    const client = new KubeClient({ kubeConfig: api.kubeConfig, fieldManager: 'trace-test' });
    await client.create(SECRETS, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'app', namespace: NAMESPACE } });
    await client.create(CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app-child', namespace: NAMESPACE } });
    let passes = 0;
    rc = startRealController({ kubeConfig: api.kubeConfig });
    const handlerClient = new KubeClient({ kubeConfig: api.kubeConfig, fieldManager: 'trace-controller' });
    await rc.controller.register(SECRETS, async (instance, ctx) => {
      if (instance.name !== 'app') return;
      await ctx.watcher.watch({ nodeId: 'child', gvr: CONFIGMAPS, namespace: NAMESPACE, name: 'app-child' });
      const child = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app-child', namespace: NAMESPACE }, data: { owner: 'app' } };
      await handlerClient.apply(CONFIGMAPS, child, { signal: ctx.signal, force: true });
      passes++;
    });
    await waitFor(() => passes >= 1, { timeoutMs: 30_000, message: 'the first pass' });

    // The change: someone else edits the child; the event routes to app, whose pass applies the child again.
    const before = passes;
    await client.patch(CONFIGMAPS, { namespace: NAMESPACE, name: 'app-child' }, { data: { edited: 'yes' } });
    await waitFor(() => passes > before, { timeoutMs: 30_000, message: 'the pass the edit triggered' });
    await provider.forceFlush();

    let found: { trace: JaegerTrace; pass: JaegerSpan; apply: JaegerSpan; server: JaegerSpan; eventSpanId: string } | undefined;
    await waitFor(
      async () => {
        for (const t of await jaeger.traces(SERVICE, 'protean.pass')) {
          const pass = t.spans.find((s) => s.operationName === 'protean.pass' && s.references.some((r) => r.refType === 'FOLLOWS_FROM'));
          if (pass === undefined || tag(pass, 'protean.pass.sources') === undefined) continue;
          const link = pass.references.find((r) => r.refType === 'FOLLOWS_FROM')!;
          const apply = t.spans.find((s) => s.operationName === 'APPLY configmaps' && s.references.some((r) => r.spanID === pass.spanID));
          const server =
            apply && t.spans.find((s) => serviceOf(t, s) === 'apiserver' && s.references.some((r) => r.spanID === apply.spanID));
          if (apply === undefined || server === undefined) continue;
          // The link goes to the routing of the edit: a protean.event span for app-child, in a trace of its own.
          const [eventTrace] = await fetch(`http://127.0.0.1:16686/api/traces/${link.traceID}`)
            .then((r) => r.json() as Promise<{ data: JaegerTrace[] }>)
            .then((r) => r.data);
          const event = eventTrace?.spans.find((s) => s.spanID === link.spanID);
          if (event === undefined || tag(event, 'protean.event.name') !== 'app-child' || tag(event, 'protean.event.type') !== 'update')
            continue;
          found = { trace: t, pass, apply, server, eventSpanId: event.spanID };
          return true;
        }
        return false;
      },
      { timeoutMs: 60_000, intervalMs: 500, message: 'Jaeger to hold the trace of the pass the edit triggered' },
    );

    const { trace: t, pass, apply, server } = found!;
    expect(tag(pass, 'protean.instance.name')).toBe('app');
    expect(tag(pass, 'protean.parent.gvr')).toBe('/v1/secrets');
    expect(apply.traceID).toBe(pass.traceID);
    expect(server.traceID).toBe(t.traceID);
    expect(serviceOf(t, apply)).toBe(SERVICE);
    handlerClient.close();
    client.close();
  }, 180_000);
});
