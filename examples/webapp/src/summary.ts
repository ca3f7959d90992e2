import type { LatencyStats } from './LatencyTracker.js';
import type { PromSample } from './parsePrometheusText.js';

/** How one scenario step ended. */
export interface StepResult {
  readonly name: string;
  readonly ok: boolean;
  /** Time from the step's start to its last expectation holding (or failing). */
  readonly elapsedMs: number;
  /** Informers running when the step ended. */
  readonly activeInformers: number;
  /** Which expectation failed, and what was seen instead. */
  readonly failure?: string;
}

/** Everything the demo reports at the end. */
export interface DemoSummary {
  /** True when every step's expectations held. */
  readonly ok: boolean;
  readonly steps: readonly StepResult[];
  /** From `dynamic_controller_reconcile_total`, per parent GVR key. */
  readonly reconciles: { readonly total: number; readonly byGvr: Readonly<Record<string, number>> };
  /** From `dynamic_controller_handler_errors_total`. */
  readonly handlerErrors: number;
  readonly activeInformers: { readonly count: number; readonly gvrs: readonly string[] };
  readonly registeredGvrs: readonly string[];
  readonly queueDepth: number;
  /** Change acknowledged by the API server -> next handler call for the affected instance. */
  readonly latency: LatencyStats;
  readonly metricsUrl: string;
  /** A few lines of the `/metrics` scrape, verbatim. */
  readonly scraped: readonly string[];
  readonly durationMs: number;
}

/** The metrics whose samples the summary shows verbatim. */
export const SHOWN_METRICS: readonly string[] = [
  'dynamic_controller_reconcile_total',
  'dynamic_controller_handler_errors_total',
  'dynamic_controller_gvr_count',
  'dynamic_controller_watch_count',
  'dynamic_controller_instance_watch_count',
  'dynamic_controller_watch_request_count',
  'workqueue_adds_total',
];

/** What {@link summarize} reads besides the scrape. */
export interface SummaryInput {
  readonly steps: readonly StepResult[];
  readonly samples: readonly PromSample[];
  readonly informers: { readonly count: number; readonly gvrs: readonly string[] };
  readonly registeredGvrs: readonly string[];
  readonly queueDepth: number;
  readonly latency: LatencyStats;
  readonly metricsUrl: string;
  readonly durationMs: number;
  /** Steps the scenario planned; fewer results than this means it stopped early. */
  readonly plannedSteps: number;
}

/** Builds the summary; reconcile and error counts come from the `/metrics` scrape. */
export function summarize(input: SummaryInput): DemoSummary {
  const byGvr: Record<string, number> = {};
  let total = 0;
  let handlerErrors = 0;
  for (const s of input.samples) {
    if (s.name === 'dynamic_controller_reconcile_total') {
      const gvr = s.labels['gvr'] ?? '';
      byGvr[gvr] = (byGvr[gvr] ?? 0) + s.value;
      total += s.value;
    } else if (s.name === 'dynamic_controller_handler_errors_total') {
      handlerErrors += s.value;
    }
  }
  return {
    ok: input.steps.length === input.plannedSteps && input.steps.every((s) => s.ok),
    steps: input.steps,
    reconciles: { total, byGvr },
    handlerErrors,
    activeInformers: input.informers,
    registeredGvrs: input.registeredGvrs,
    queueDepth: input.queueDepth,
    latency: input.latency,
    metricsUrl: input.metricsUrl,
    scraped: input.samples.filter((s) => SHOWN_METRICS.includes(s.name)).map((s) => s.line),
    durationMs: input.durationMs,
  };
}

/** The summary as the lines the demo prints. */
export function formatSummary(s: DemoSummary): string[] {
  const ms = (v: number | undefined): string => (v === undefined ? 'n/a' : `${v.toFixed(1)} ms`);
  const failed = s.steps.filter((step) => !step.ok);
  const lines = [
    '',
    '=== Summary ===',
    s.ok
      ? `result:            converged: all ${s.steps.length} steps met their expectations`
      : `result:            FAILED: ${failed.map((f) => `${f.name}: ${f.failure ?? 'failed'}`).join('; ') || 'scenario stopped early'}`,
    `duration:          ${(s.durationMs / 1000).toFixed(2)} s`,
    `reconciles:        ${s.reconciles.total} total`,
    ...Object.entries(s.reconciles.byGvr)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([gvr, n]) => `                     ${gvr.padEnd(36)} ${n}`),
    `handler errors:    ${s.handlerErrors}`,
    `active informers:  ${s.activeInformers.count}${s.activeInformers.gvrs.length > 0 ? ` (${s.activeInformers.gvrs.join(', ')})` : ''}`,
    `registered kinds:  ${s.registeredGvrs.join(', ') || 'none'}`,
    `queue depth:       ${s.queueDepth}`,
    `latency:           change -> handler p50 ${ms(s.latency.p50Ms)}, p99 ${ms(s.latency.p99Ms)}, max ${ms(s.latency.maxMs)} (n=${s.latency.count})`,
    `steps:`,
    ...s.steps.map(
      (step, i) =>
        `  ${String(i + 1).padStart(2)}. ${step.ok ? 'ok  ' : 'FAIL'} ${step.name.padEnd(44)} ${(step.elapsedMs / 1000).toFixed(2)} s, informers ${step.activeInformers}`,
    ),
    `scraped from ${s.metricsUrl}/metrics:`,
    ...s.scraped.map((line) => `  ${line}`),
  ];
  return lines;
}
