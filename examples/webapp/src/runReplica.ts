import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '@protean/core';
import { detectShardSelectorSupport, KubeMemberLeaseClient, kubeShardInformerSource, ShardGate, ShardMembership } from '@protean/sharding';
import { composeController } from './composeController.js';
import { WEBAPP } from './kinds.js';
import type { ReplicaConfig, ReplicaEvent } from './replicaProtocol.js';
import { requestOptions } from './requestOptions.js';
import { createWebAppHandler } from './webappController.js';

/** What {@link runReplica} needs besides its configuration. */
export interface ReplicaDeps {
  readonly config: ReplicaConfig;
  readonly logger: Logger;
  /** Reports to the parent (the IPC channel of a replica process). */
  readonly send: (event: ReplicaEvent) => void;
  /** Aborting it stops the replica gracefully: drain, release the member lease, stop the controller. */
  readonly stop: AbortSignal;
}

/**
 * One replica of the sharded WebApp controller: its own controller,
 * informers, queue, shard gate and member lease. The split balances the
 * namespaces present at start (listed once, so the split moves only when
 * members come or go). Resolves after a graceful stop; rejects when setup
 * fails.
 *
 * Order matters on a share change: the gate stops taking the lost ranges
 * and drains their passes first, then the informers let go of them and
 * deliver what entered as adds.
 */
export async function runReplica(deps: ReplicaDeps): Promise<void> {
  const { config, logger, send, stop } = deps;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(config.kubeconfig);

  const support = await detectShardSelectorSupport(kubeConfig, { logger, signal: stop });
  const namespaces = await kubeConfig.makeApiClient(CoreV1Api).listNamespace({}, requestOptions(stop));
  const keys = namespaces.items.map((ns) => ns.metadata?.name ?? '').filter((name) => name !== '');
  send({ type: 'started', mode: support.mode, reason: support.reason, keys });

  const source = kubeShardInformerSource({ kubeConfig, key: 'namespace', ranges: [], mode: support.mode, logger });
  const gate = new ShardGate({ key: 'namespace' });
  const membership = new ShardMembership({
    client: new KubeMemberLeaseClient(kubeConfig),
    namespace: config.leaseNamespace,
    group: config.group,
    identity: config.identity,
    keys: () => keys,
    ...config.timings,
    logger,
  });
  const { controller } = composeController({ kubeConfig, logger, informerSource: source, processMetrics: false });
  const handler = createWebAppHandler({
    kubeConfig,
    reporter: {
      finished(_gvr, instance, result) {
        const generation = result.outcome === 'reconciled' ? { generation: result.generation } : {};
        send({ type: 'reconciled', namespace: instance.namespace, name: instance.name, outcome: result.outcome, ...generation });
      },
    },
  });

  // Our own signal: a failed setup stops the controller even though the caller's signal never fires.
  const halt = new AbortController();
  const forward = (): void => halt.abort(stop.reason);
  if (stop.aborted) forward();
  else stop.addEventListener('abort', forward, { once: true });
  const running = controller.start(halt.signal);
  try {
    await controller.register(WEBAPP.gvr, gate.wrap(handler));
  } catch (err) {
    halt.abort(err);
    await running.catch(() => {});
    stop.removeEventListener('abort', forward);
    throw err;
  }
  send({ type: 'ready' });
  // On a stop, run releases the member lease (the others take the share over at their next step).
  await membership.run(halt.signal, async ({ ranges, members }) => {
    await gate.setRanges(ranges);
    source.setRanges(ranges);
    send({ type: 'ranges', ranges, members });
  });
  await running;
  stop.removeEventListener('abort', forward);
}
