// The controller process: two or more replicas, one of them leading (a
// coordination.k8s.io Lease in the Pod's namespace), the others a warm standby.
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { createLogger } from '@protean/core';
import { leaderElectionModule } from '@protean/leader-election';
import { loadKubeConfig } from '@protean/transport';
import { composeController } from './composeController.js';
import { createHandler } from './controller.js';
import { registerWhenAllowed } from './register.js';
import { readEnvironment } from './environment.js';
import { CONTROLLER_NAME, PARENT } from './names.js';
import { stopOnSignals } from './shutdown.js';

const env = readEnvironment(process.env);
const logger = createLogger({ base: { pod: env.podName } });
const stop = stopOnSignals((message) => logger.info(message));

// In a Pod: its ServiceAccount's token (re-read as it rotates) and the cluster CA; else $KUBECONFIG or ~/.kube/config.
// Protean's reader, not @kubernetes/client-node's KubeConfig (which would load its generated API: about 80 MiB of RSS).
const kubeConfig = loadKubeConfig();
// Unique per process: a restarted container keeps its Pod name.
const identity = `${env.podName}_${randomBytes(4).toString('hex')}`;
const { controller, metrics } = composeController({
  kubeConfig,
  logger,
  config: env.resyncPeriodMs === undefined ? {} : { resyncPeriodMs: env.resyncPeriodMs },
  modules: [leaderElectionModule({ kubeConfig, namespace: env.podNamespace, leaseName: CONTROLLER_NAME, identity })],
});
const server = await metrics.serve({ port: env.metricsPort, host: '0.0.0.0' });
logger.info({ url: server.url, identity }, 'serving /metrics, /healthz, /readyz and /statusz');

// A standby until it holds the lease; on SIGTERM it drains its passes, then releases the lease.
const running = controller.start(stop.signal);
try {
  await registerWhenAllowed(controller, PARENT.gvr, createHandler({ kubeConfig, controller }), { signal: stop.signal, logger });
  await running;
} catch (err) {
  logger.error({ err }, 'the controller stopped on an error');
  process.exitCode = 1;
  stop.abort(err);
  await running.catch(() => {});
} finally {
  await server.stop();
}
