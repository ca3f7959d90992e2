// The controller process. In a Pod, deploy/deployment.yaml sets its environment; run locally with `npm run dev`
// against the cluster of your current kubeconfig context (see the README).
import 'reflect-metadata';
import { createLogger } from '@protean/core';
import { loadKubeConfig } from '@protean/transport';
import { createApp } from './app.js';
import { readEnvironment } from './environment.js';
import { stopOnSignals } from './shutdown.js';

const env = readEnvironment(process.env);
const logger = createLogger({ base: { pod: env.podName } });
const stop = stopOnSignals((message) => logger.info(message));

// In a Pod: its ServiceAccount's token (re-read as it rotates) and the cluster CA; else $KUBECONFIG or ~/.kube/config.
// Protean's reader, not @kubernetes/client-node's KubeConfig (which would load its generated API: about 80 MiB of RSS).
const kubeConfig = loadKubeConfig();
try {
  const app = await createApp({
    kubeConfig,
    logger,
    namespace: env.podNamespace,
    podName: env.podName,
    signal: stop.signal,
    ...(env.resyncPeriodMs === undefined ? {} : { resyncPeriodMs: env.resyncPeriodMs }),
  });
  const server = await app.metrics.serve({ port: env.metricsPort, host: env.metricsHost, readiness: app.readiness });
  logger.info({ url: server.url, identity: app.identity }, 'serving /metrics, /healthz, /readyz and /statusz');
  try {
    await app.run(stop.signal);
  } finally {
    await server.stop();
  }
} catch (err) {
  logger.error({ err }, 'the controller stopped on an error');
  process.exitCode = 1;
}
