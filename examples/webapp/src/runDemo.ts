import type { RecentPassesRecorder } from '@protean/metrics';
import type { KubeConfig } from '@kubernetes/client-node';
import { gvrEquals, gvrKey, type DynamicController, type Handler, type Logger } from '@protean/core';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { composeController } from './composeController.js';
import { WEBAPP } from './kinds.js';
import { LatencyTracker } from './LatencyTracker.js';
import { liveReporter } from './liveReporter.js';
import { LiveLog } from './LiveLog.js';
import { parsePrometheusText } from './parsePrometheusText.js';
import { runScenario } from './scenario.js';
import { formatSummary, summarize, type DemoSummary } from './summary.js';
import { createWebAppHandler, webAppRegisterOptions } from './webappController.js';

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
  /** Serve the status page at `/statusz` on the metrics port; default true. */
  readonly statusPage?: boolean;
  /** The span processor the status page's Recent passes reads (`--trace`); without it the section says how to turn it on. */
  readonly recentPasses?: RecentPassesRecorder;
  /**
   * Keep running after the scenario until this signal aborts: WebApp is
   * registered again (the scenario ends by deregistering it), so its three
   * instances are reconciled and their watches shown on the status page.
   * The summary is printed before the hold.
   */
  readonly hold?: AbortSignal;
  /** Called once the hold begins (tests drive the held demo through it). */
  readonly onHold?: (held: HeldDemo) => void;
}

/** What a held demo serves, for whoever looks at it. */
export interface HeldDemo {
  /** The metrics server's base URL. */
  readonly metricsUrl: string;
  /** The status page, `<metricsUrl>/statusz`; undefined with `statusPage: false`. */
  readonly statusPageUrl: string | undefined;
  /** The in-memory API server's kubeconfig (to change objects while the demo holds). */
  readonly kubeConfig: KubeConfig;
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
  let printed = false;
  try {
    const kubeConfig = server.kubeConfig();
    log.line(`in-memory Kubernetes API server listening at ${server.url}`);
    const statusPage = options.statusPage ?? true;
    const { controller, metrics, informers } = composeController({
      kubeConfig,
      logger: options.logger,
      onInformerChange: (c) => log.line(`informer ${c.change}: ${gvrKey(c.gvr)} (running: ${c.active})`),
      statusPage,
      ...(options.recentPasses === undefined ? {} : { recentPasses: options.recentPasses }),
    });
    const metricsServer = await metrics.serve({ port: options.metricsPort ?? 0, host: options.metricsHost ?? '127.0.0.1' });
    log.line(`metrics at ${metricsServer.url}/metrics`);
    const statusPageUrl = statusPage ? `${metricsServer.url}/statusz` : undefined;
    if (statusPageUrl !== undefined) log.line(`status page: ${statusPageUrl}`);
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
      if (options.hold !== undefined) {
        const onHold = options.onHold === undefined ? {} : { onHold: options.onHold };
        for (const line of formatSummary(summary)) options.out(line);
        printed = true;
        await hold(options.hold, { controller, handler, log, statusPageUrl, metricsUrl: metricsServer.url, kubeConfig, ...onHold });
      }
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
  if (!printed) for (const line of formatSummary(summary)) options.out(line);
  return summary;
}

/** The demo after its scenario: WebApp registered again, everything serving until `signal` aborts. */
async function hold(
  signal: AbortSignal,
  d: {
    controller: DynamicController;
    handler: Handler;
    log: LiveLog;
    statusPageUrl: string | undefined;
    metricsUrl: string;
    kubeConfig: KubeConfig;
    onHold?: (held: HeldDemo) => void;
  },
): Promise<void> {
  if (signal.aborted) return;
  if (!d.controller.registeredGVRs().some((gvr) => gvrEquals(gvr, WEBAPP.gvr)))
    await d.controller.register(WEBAPP.gvr, d.handler, webAppRegisterOptions(WEBAPP.gvr));
  d.log.line('holding: WebApp registered again, so its instances are reconciled and watched; Ctrl-C to stop');
  d.log.line(d.statusPageUrl === undefined ? `metrics at ${d.metricsUrl}/metrics` : `status page: ${d.statusPageUrl}`);
  d.onHold?.({ metricsUrl: d.metricsUrl, statusPageUrl: d.statusPageUrl, kubeConfig: d.kubeConfig });
  await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
