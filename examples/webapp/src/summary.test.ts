import { describe, expect, it } from '@jest/globals';
import { parsePrometheusText } from './parsePrometheusText.js';
import { formatSummary, summarize, type SummaryInput } from './summary.js';

const SCRAPE = `# HELP dynamic_controller_reconcile_total Total number of reconciliations per GVR
# TYPE dynamic_controller_reconcile_total counter
dynamic_controller_reconcile_total{gvr="demo.protean.dev/v1alpha1/webapps"} 15
dynamic_controller_reconcile_total{gvr="demo.protean.dev/v1alpha1/websites"} 3
dynamic_controller_handler_errors_total{gvr="demo.protean.dev/v1alpha1/webapps"} 2
dynamic_controller_watch_count 1
process_cpu_seconds_total 0.5
`;

function input(overrides: Partial<SummaryInput> = {}): SummaryInput {
  return {
    steps: [{ name: 'one', ok: true, elapsedMs: 120, activeInformers: 1 }],
    plannedSteps: 1,
    samples: parsePrometheusText(SCRAPE),
    informers: { count: 1, gvrs: ['demo.protean.dev/v1alpha1/websites'] },
    registeredGvrs: ['demo.protean.dev/v1alpha1/websites'],
    queueDepth: 0,
    latency: { count: 2, p50Ms: 1.25, p99Ms: 7.5, maxMs: 7.5 },
    metricsUrl: 'http://127.0.0.1:9464',
    durationMs: 1234,
    ...overrides,
  };
}

describe('parsePrometheusText', () => {
  it('reads samples with their labels and skips comments', () => {
    const samples = parsePrometheusText('# HELP x y\nx{a="1",b="q\\"uote"} 2.5\ny 7\n\n');
    expect(samples).toEqual([
      { name: 'x', labels: { a: '1', b: 'q"uote' }, value: 2.5, line: 'x{a="1",b="q\\"uote"} 2.5' },
      { name: 'y', labels: {}, value: 7, line: 'y 7' },
    ]);
  });
});

describe('summarize', () => {
  it('takes reconciles per GVR and handler errors from the scrape, and shows only the chosen metrics', () => {
    const s = summarize(input());
    expect(s.ok).toBe(true);
    expect(s.reconciles).toEqual({
      total: 18,
      byGvr: { 'demo.protean.dev/v1alpha1/webapps': 15, 'demo.protean.dev/v1alpha1/websites': 3 },
    });
    expect(s.handlerErrors).toBe(2);
    expect(s.scraped).not.toContain('process_cpu_seconds_total 0.5');
    expect(s.scraped).toContain('dynamic_controller_watch_count 1');
  });

  it('is not ok when a step failed or the scenario stopped before its last step', () => {
    expect(summarize(input({ steps: [{ name: 'one', ok: false, elapsedMs: 1, activeInformers: 0, failure: 'x' }] })).ok).toBe(false);
    expect(summarize(input({ plannedSteps: 2 })).ok).toBe(false);
  });
});

describe('formatSummary', () => {
  it('prints the result, the numbers and the failing expectation', () => {
    const ok = formatSummary(summarize(input()));
    expect(ok).toContain('result:            converged: all 1 steps met their expectations');
    expect(ok).toContain('reconciles:        18 total');
    expect(ok).toContain('latency:           change -> handler p50 1.3 ms, p99 7.5 ms, max 7.5 ms (n=2)');

    const failed = formatSummary(
      summarize(
        input({
          steps: [{ name: 'one', ok: false, elapsedMs: 1, activeInformers: 0, failure: 'count: not true within 10 ms (last seen: 2)' }],
        }),
      ),
    );
    expect(failed).toContain('result:            FAILED: one: count: not true within 10 ms (last seen: 2)');
  });
});
