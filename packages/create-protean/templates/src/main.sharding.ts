// The controller process, sharded: every replica reconciles the parents of
// its share of the namespaces (one member Lease per replica in the Pod's namespace).
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { createLogger } from '@protean/core';
import { instrumentSharding, shardReadiness } from '@protean/metrics';
import {
  applyShardChange,
  detectShardSelectorSupport,
  KubeMemberLeaseClient,
  kubeShardInformerSource,
  ShardGate,
  ShardMembership,
} from '@protean/sharding';
import { KubeClient } from '@protean/client';
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
const identity = `${env.podName}_${randomBytes(4).toString('hex')}`;
const key = 'namespace'; // a parent and its ConfigMaps share a namespace, so they land in the same share

/** Runs a step the controller cannot start without; on failure (a 403, say) logs it by name and exits 1. */
async function required<T>(what: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    logger.error({ err }, `${what} failed: the controller cannot start`);
    process.exit(1);
  }
}

// The split balances the namespaces present at start (listed once: it moves only when members come or go).
const { mode } = await required('detecting shardSelector support', () =>
  detectShardSelectorSupport(kubeConfig, { logger, signal: stop.signal }),
);
const client = new KubeClient({ kubeConfig });
const namespaces = (
  await required('listing the namespaces (the shard keys)', () =>
    client.list({ group: '', version: 'v1', resource: 'namespaces' }, { signal: stop.signal }),
  )
).map((ns) => ns.metadata.name);
client.close();

const source = kubeShardInformerSource({ kubeConfig, key, ranges: [], mode, logger });
const membership = new ShardMembership({
  client: new KubeMemberLeaseClient(kubeConfig),
  namespace: env.podNamespace,
  group: CONTROLLER_NAME,
  identity,
  keys: () => namespaces,
  logger,
});
const gate = new ShardGate({ key, validity: membership.validity });
const { controller, metrics } = composeController({
  kubeConfig,
  logger,
  informerSource: source,
  config: env.resyncPeriodMs === undefined ? {} : { resyncPeriodMs: env.resyncPeriodMs },
});
instrumentSharding(metrics.registry, membership, { mode, cache: source });
const server = await metrics.serve({ port: env.metricsPort, host: '0.0.0.0', readiness: [shardReadiness(membership)] });
logger.info({ url: server.url, identity, mode }, 'serving /metrics, /healthz, /readyz and /statusz');

const running = controller.start(stop.signal);
try {
  await registerWhenAllowed(controller, PARENT.gvr, gate.wrap(createHandler({ kubeConfig, controller })), { signal: stop.signal, logger });
  // Gate first (stop taking, drain), then the informers. On SIGTERM the membership gives every range up,
  // waits for the drain and releases its lease: the others take its namespaces over at once.
  await Promise.all([membership.run(stop.signal, applyShardChange({ gate, source })), running]);
} catch (err) {
  logger.error({ err }, 'the controller stopped on an error');
  process.exitCode = 1;
  stop.abort(err);
  await running.catch(() => {});
} finally {
  await server.stop();
}
