import { gvrKey, type Logger } from '@protean/core';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { composeController } from './composeController.js';
import { LatencyTracker } from './LatencyTracker.js';
import { liveReporter } from './liveReporter.js';
import { LiveLog } from './LiveLog.js';
import { parsePrometheusText } from './parsePrometheusText.js';
import { runScenario } from './scenario.js';
import { formatSummary, summarize, type DemoSummary } from './summary.js';
import { createWebAppHandler } from './webappController.js';

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /** Receives each human-readable line (the live log, then the summary). */
  readonly out: (line: string) => void;
  /** The controller's pino logger. */
  readonly logger: Logger;
  /** Bounded wait of each scenario step. Default 10 000. */
  readonly stepTimeoutMs?: number;
  /** Port of the metrics server; default 0 (a free port). */
  readonly metricsPort?: number;
  /** Default `127.0.0.1`. */
  readonly metricsHost?: string;
}

/**
 * The whole demo in one call: starts an in-memory Kubernetes API server in
 * this process, composes the controller against it exactly as against a
 * real cluster, serves its metrics, runs the scripted scenario, scrapes
 * `/metrics`, shuts everything down and prints the summary. Resolves with
 * the summary; `summary.ok` tells whether every step converged.
 */
export async function runDemo(options: DemoOptions): Promise<DemoSummary> {
  const log = new LiveLog(options.out);
  const latency = new LatencyTracker();
  const server = await InMemoryApiServer.start();
  let summary: DemoSummary;
  try {
    const kubeConfig = server.kubeConfig();
    log.line(`in-memory Kubernetes API server listening at ${server.url}`);
    const { controller, metrics, informers } = composeController({
      kubeConfig,
      logger: options.logger,
      onInformerChange: (c) => log.line(`informer ${c.change}: ${gvrKey(c.gvr)} (running: ${c.active})`),
    });
    const metricsServer = await metrics.serve({ port: options.metricsPort ?? 0, host: options.metricsHost ?? '127.0.0.1' });
    log.line(`metrics at ${metricsServer.url}/metrics`);
    const stop = new AbortController();
    const running = controller.start(stop.signal);
    try {
      const handler = createWebAppHandler({ kubeConfig, reporter: liveReporter(log, latency) });
      const scenario = await runScenario({
        kubeConfig,
        controller,
        handler,
        informers,
        latency,
        log,
        stepTimeoutMs: options.stepTimeoutMs ?? 10_000,
        signal: stop.signal,
      });
      const scrape = await fetch(`${metricsServer.url}/metrics`);
      summary = summarize({
        steps: scenario.steps,
        plannedSteps: scenario.planned,
        samples: parsePrometheusText(await scrape.text()),
        informers: { count: informers.count(), gvrs: informers.gvrs() },
        registeredGvrs: controller.registeredGVRs().map(gvrKey),
        queueDepth: controller.queueLength(),
        latency: latency.stats(),
        metricsUrl: metricsServer.url,
        durationMs: log.elapsedMs(),
      });
    } finally {
      log.line('shutting down: controller, metrics server, API server');
      stop.abort();
      try {
        await running;
      } finally {
        await metricsServer.stop();
      }
    }
  } finally {
    await server.stop();
  }
  for (const line of formatSummary(summary)) options.out(line);
  return summary;
}
