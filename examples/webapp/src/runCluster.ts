import type { RecentPassesRecorder } from '@protean/metrics';
import { gvrKey, type Logger } from '@protean/core';
import type { KubeConfigLike } from '@protean/transport';
import { composeController } from './composeController.js';
import { ensureCrd } from './ensureCrd.js';
import { WEBAPP, WEBSITE } from './kinds.js';
import { liveReporter } from './liveReporter.js';
import { LiveLog } from './LiveLog.js';
import { createWebAppHandler, webAppRegisterOptions } from './webappController.js';

/** Options of {@link runCluster}. */
export interface ClusterOptions {
  /** `ProteanKubeConfig` (what the CLI loads) or a client-node `KubeConfig` (the in-memory server's). */
  readonly kubeConfig: KubeConfigLike & { getCurrentContext(): string | undefined };
  /** Receives each human-readable line. */
  readonly out: (line: string) => void;
  readonly logger: Logger;
  readonly metricsPort: number;
  readonly metricsHost: string;
  /** Serve the status page at `/statusz` on the metrics port; default true. */
  readonly statusPage?: boolean;
  /** The span processor the status page's Recent passes reads (`--trace`); without it the section says how to turn it on. */
  readonly recentPasses?: RecentPassesRecorder;
  /** Aborting it shuts the controller down gracefully (wired to SIGINT/SIGTERM by the CLI). */
  readonly stop: AbortSignal;
  /** Called once WebApp is registered and reconciling; tests wait for it. */
  readonly onReady?: (metricsUrl: string) => void;
}

/**
 * Runs the controller against a real cluster until `stop` aborts: ensures
 * the WebApp and WebSite CRDs, registers WebApp, serves metrics, and
 * resolves after a graceful shutdown. Rejects when setup fails (no
 * permission to create CRDs, cluster unreachable), after shutting down
 * whatever it had started.
 */
export async function runCluster(options: ClusterOptions): Promise<void> {
  const log = new LiveLog(options.out);
  const { kubeConfig } = options;
  log.line(`cluster ${kubeConfig.getCurrentCluster()?.server ?? '(none)'} (context ${kubeConfig.getCurrentContext() || '(none)'})`);
  const { controller, metrics } = composeController({
    kubeConfig,
    logger: options.logger,
    onInformerChange: (c) => log.line(`informer ${c.change}: ${gvrKey(c.gvr)} (running: ${c.active})`),
    statusPage: options.statusPage ?? true,
    ...(options.recentPasses === undefined ? {} : { recentPasses: options.recentPasses }),
  });
  // Our own controller: setup failures stop it even though the caller's signal never fires.
  const stop = new AbortController();
  const forward = (): void => stop.abort(options.stop.reason);
  if (options.stop.aborted) forward();
  else options.stop.addEventListener('abort', forward, { once: true });

  const metricsServer = await metrics.serve({ port: options.metricsPort, host: options.metricsHost });
  const running = controller.start(stop.signal);
  try {
    for (const kind of [WEBAPP, WEBSITE]) {
      const outcome = await ensureCrd(kubeConfig, kind, { signal: stop.signal });
      log.line(`CRD ${kind.gvr.resource}.${kind.gvr.group} ${outcome}; served`);
    }
    const handler = createWebAppHandler({ kubeConfig, reporter: liveReporter(log) });
    await controller.register(WEBAPP.gvr, handler, webAppRegisterOptions(WEBAPP.gvr));
    log.line(`reconciling WebApps in all namespaces; metrics at ${metricsServer.url}/metrics; Ctrl-C to stop`);
    if (options.statusPage ?? true) log.line(`status page: ${metricsServer.url}/statusz`);
    options.onReady?.(metricsServer.url);
  } catch (err) {
    if (!stop.signal.aborted) stop.abort(err);
    await running.catch(() => {});
    await metricsServer.stop();
    options.stop.removeEventListener('abort', forward);
    // Interrupted during setup is a normal stop, not a failure.
    if (options.stop.aborted) return;
    throw err;
  }
  try {
    await running;
    log.line('controller stopped');
  } finally {
    await metricsServer.stop();
    options.stop.removeEventListener('abort', forward);
  }
}
