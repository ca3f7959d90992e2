import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { context, propagation, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { tracing, type GroupVersionResource } from '@protean/core';
import { KubeClient } from './KubeClient.js';
import type { KubeHttpRequest, KubeHttpResponse, KubeTransport } from './KubeTransport.js';

const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };

/** Answers every request with `statuses` in turn (the last one repeated), recording what was sent. */
class ScriptedTransport implements KubeTransport {
  readonly sent: KubeHttpRequest[] = [];
  constructor(private readonly statuses: number[]) {}
  async send(request: KubeHttpRequest): Promise<KubeHttpResponse> {
    this.sent.push(request);
    const status = this.statuses.length > 1 ? this.statuses.shift()! : this.statuses[0]!;
    const body = status < 300 ? '{"metadata":{"name":"a","namespace":"ns"}}' : '{"kind":"Status","code":503,"reason":"ServiceUnavailable"}';
    return { status, headers: {}, body };
  }
}

let exporter: InMemorySpanExporter;

beforeEach(() => {
  exporter = new InMemorySpanExporter();
  new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).register();
});

afterEach(() => {
  trace.disable();
  context.disable();
  propagation.disable();
  tracing.refresh();
});

describe('client request spans', () => {
  it('records one client span per request, a child of the pass bound to its signal, and sends its traceparent', async () => {
    const transport = new ScriptedTransport([503, 200]);
    const client = new KubeClient({ transport, retry: { minDelayMs: 1, maxDelayMs: 1 } });
    tracing.refresh();
    const pass = tracing.startSpan('protean.pass', { parent: 'root' })!;
    const signal = new AbortController().signal;
    tracing.bindSignal(signal, pass);
    await client.apply(
      configmaps,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' } },
      { fieldManager: 'm', signal },
    );
    pass.end();

    const [span] = exporter.getFinishedSpans().filter((s) => s.name === 'APPLY configmaps');
    expect(span!.kind).toBe(2); // CLIENT
    expect(span!.parentSpanContext?.spanId).toBe(pass.spanContext().spanId);
    expect(span!.spanContext().traceId).toBe(pass.spanContext().traceId);
    expect(span!.attributes).toMatchObject({
      'http.request.method': 'PATCH',
      'url.path': '/api/v1/namespaces/ns/configmaps/a',
      'protean.request.target': 'configmaps ns/a',
      'http.response.status_code': 200,
    });
    // Both attempts carry the request span's W3C traceparent.
    expect(transport.sent).toHaveLength(2);
    for (const request of transport.sent) {
      expect(request.headers.traceparent).toBe(`00-${span!.spanContext().traceId}-${span!.spanContext().spanId}-01`);
    }
  });

  it('marks a failed request span as an error', async () => {
    const client = new KubeClient({ transport: new ScriptedTransport([404]) });
    await expect(client.get(configmaps, { namespace: 'ns', name: 'a' })).rejects.toThrow(/404/);
    const [span] = exporter.getFinishedSpans();
    expect(span!.name).toBe('GET configmaps');
    expect(span!.status.code).toBe(2);
    expect(span!.parentSpanContext).toBeUndefined();
  });

  it('sends no traceparent and records nothing without a tracer provider', async () => {
    trace.disable();
    const transport = new ScriptedTransport([200]);
    await new KubeClient({ transport }).get(configmaps, { namespace: 'ns', name: 'a' });
    expect(transport.sent[0]!.headers).not.toHaveProperty('traceparent');
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
