import { describe, expect, it } from '@jest/globals';
import { ROOT_CONTEXT, trace, type Span, type Tracer } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { PASS_SPAN_NAME } from '@protean/core';
import { RecentPassesRecorder } from './RecentPassesRecorder.js';

/** A tracer whose spans go to a new recorder only. */
function recorded(options?: ConstructorParameters<typeof RecentPassesRecorder>[0]): { recorder: RecentPassesRecorder; tracer: Tracer } {
  const recorder = new RecentPassesRecorder(options);
  const provider = new BasicTracerProvider({ spanProcessors: [recorder] });
  return { recorder, tracer: provider.getTracer('protean') };
}

const T0 = Date.parse('2026-12-01T10:00:00.000Z');

function pass(tracer: Tracer, name: string, startMs = T0, links: Parameters<Tracer['startSpan']>[1] = {}): Span {
  return tracer.startSpan(
    PASS_SPAN_NAME,
    {
      root: true,
      startTime: startMs,
      attributes: {
        'protean.parent.gvr': 'demo.protean.dev/v1/webapps',
        'protean.instance.namespace': 'ns',
        'protean.instance.name': name,
        'protean.pass.attempt': 1,
      },
      ...links,
    },
    ROOT_CONTEXT,
  );
}

function child(tracer: Tracer, parent: Span, name: string, startMs: number): Span {
  return tracer.startSpan(name, { kind: 2, startTime: startMs }, trace.setSpan(ROOT_CONTEXT, parent));
}

describe('RecentPassesRecorder', () => {
  it('keeps a pass with its client spans placed from its start, its outcome and its watches', () => {
    const { recorder, tracer } = recorded();
    const p = pass(tracer, 'shop');
    const get = child(tracer, p, 'GET configmaps', T0 + 2);
    get.end(T0 + 7);
    const apply = child(tracer, p, 'APPLY configmaps', T0 + 10);
    apply.setStatus({ code: 2, message: 'conflict' });
    apply.end(T0 + 30);
    p.setAttribute('protean.pass.outcome', 'success');
    p.setAttribute('protean.pass.requeue', false);
    p.setAttribute('protean.pass.watches', ['config=configmaps ns/shop-config']);
    p.end(T0 + 40);

    const [kept, ...rest] = recorder.passes();
    expect(rest).toEqual([]);
    expect(kept).toEqual({
      traceId: p.spanContext().traceId,
      spanId: p.spanContext().spanId,
      parent: 'demo.protean.dev/v1/webapps',
      namespace: 'ns',
      name: 'shop',
      attempt: 1,
      outcome: 'success',
      requeue: false,
      startedAt: '2026-12-01T10:00:00.000Z',
      durationMs: 40,
      watches: ['config=configmaps ns/shop-config'],
      triggers: [],
      triggersDropped: 0,
      spans: [
        { name: 'GET configmaps', spanId: get.spanContext().spanId, offsetMs: 2, durationMs: 5 },
        { name: 'APPLY configmaps', spanId: apply.spanContext().spanId, offsetMs: 10, durationMs: 20, error: 'conflict' },
      ],
      spansDropped: 0,
    });
  });

  it("turns the pass's links into its triggers: event, watches matched, and the takeover or previous pass", () => {
    const { recorder, tracer } = recorded();
    const event = tracer.startSpan('protean.event', { root: true });
    event.end();
    const previous = pass(tracer, 'shop');
    previous.end();
    const p = pass(tracer, 'shop', T0, {
      links: [
        {
          context: event.spanContext(),
          attributes: {
            'protean.trigger.source': 'live',
            'protean.trigger.gvr': '/v1/configmaps',
            'protean.trigger.namespace': 'ns',
            'protean.trigger.name': 'shop-config',
            'protean.trigger.type': 'update',
            'protean.trigger.resource_version': '812',
            'protean.trigger.watches': ['config', 'labelled'],
          },
        },
        { context: previous.spanContext(), attributes: { 'protean.trigger.source': 'retry' } },
      ],
    });
    p.setAttribute('protean.pass.triggers_dropped', 3);
    p.end(T0 + 1);
    expect(recorder.passes()[0]?.triggers).toEqual([
      {
        source: 'live',
        gvr: '/v1/configmaps',
        namespace: 'ns',
        name: 'shop-config',
        type: 'update',
        resourceVersion: '812',
        watches: ['config', 'labelled'],
        traceId: event.spanContext().traceId,
        spanId: event.spanContext().spanId,
      },
      { source: 'retry', traceId: previous.spanContext().traceId, spanId: previous.spanContext().spanId },
    ]);
    expect(recorder.passes()[0]?.triggersDropped).toBe(3);
  });

  it('keeps the last passes, newest first, with the children of each only', () => {
    const { recorder, tracer } = recorded({ passes: 3 });
    const spans = ['a', 'b', 'c', 'd', 'e'].map((name, i) => {
      const p = pass(tracer, name, T0 + i * 100);
      child(tracer, p, `GET ${name}`, T0 + i * 100 + 1).end(T0 + i * 100 + 2);
      p.end(T0 + i * 100 + 3);
      return p;
    });
    expect(recorder.passes().map((p) => [p.name, p.spans.map((s) => s.name)])).toEqual([
      ['e', ['GET e']],
      ['d', ['GET d']],
      ['c', ['GET c']],
    ]);
    // A late child of a pass no longer kept is not kept either.
    child(tracer, spans[0]!, 'GET late', T0 + 500).end(T0 + 501);
    expect(recorder.passes().flatMap((p) => p.spans.map((s) => s.name))).toEqual(['GET e', 'GET d', 'GET c']);
  });

  it('adds a child that ends after its pass, bounds the children per pass, and ignores spans outside passes', () => {
    const { recorder, tracer } = recorded({ spansPerPass: 2 });
    const p = pass(tracer, 'shop');
    const slow = child(tracer, p, 'LIST pods', T0 + 1);
    for (const i of [2, 3, 4]) child(tracer, p, `GET ${i}`, T0 + i).end(T0 + i + 1);
    p.end(T0 + 10);
    slow.end(T0 + 20);
    tracer.startSpan('LIST configmaps', { root: true }).end();
    const other = tracer.startSpan('protean.event', { root: true });
    child(tracer, other, 'GET unrelated', T0).end(T0 + 1);

    expect(recorder.passes()).toHaveLength(1);
    expect(recorder.passes()[0]?.spans.map((s) => s.name)).toEqual(['GET 2', 'GET 3']);
    expect(recorder.passes()[0]?.spansDropped).toBe(2);
  });

  it('refuses a bound that is not a positive integer', () => {
    expect(() => new RecentPassesRecorder({ passes: 0 })).toThrow('RecentPassesRecorder: passes must be a positive integer, got 0');
  });

  it('says whether a tracer provider is registered', () => {
    const recorder = new RecentPassesRecorder();
    expect(recorder.view()).toEqual({ tracing: false, limit: 50, passes: [] });
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [recorder] }));
    try {
      expect(recorder.view().tracing).toBe(true);
    } finally {
      trace.disable();
    }
  });
});
