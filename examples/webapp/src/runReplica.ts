import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '@protean/core';
import {
  applyShardChange,
  detectShardSelectorSupport,
  KubeMemberLeaseClient,
  kubeShardInformerSource,
  ShardGate,
  ShardMembership,
} from '@protean/sharding';
import { composeController } from './composeController.js';
import { WEBAPP } from './kinds.js';
import type { ReplicaConfig, ReplicaEvent } from './replicaProtocol.js';
import { requestOptions } from './requestOptions.js';
import { createWebAppHandler, webAppRegisterOptions } from './webappController.js';

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
 * deliver what entered as adds (`applyShardChange`). Ranges move
 * exclusively: the membership starts a range only once no other live
 * member's lease holds it, so two replicas never reconcile one WebApp at
 * the same time.
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
  const membership = new ShardMembership({
    client: new KubeMemberLeaseClient(kubeConfig),
    namespace: config.leaseNamespace,
    group: config.group,
    identity: config.identity,
    keys: () => keys,
    ...config.timings,
    logger,
  });
  const gate = new ShardGate({ key: 'namespace', validity: membership.validity });
  const { controller } = composeController({ kubeConfig, logger, informerSource: source, processMetrics: false });
  membership.onTransition((t) => send({ type: 'transition', kind: t.kind, ranges: t.ranges, holders: t.others }));
  // Epoch milliseconds at sub-millisecond resolution: comparable across the replica processes of one machine.
  const nowMs = (): number => performance.timeOrigin + performance.now();
  const started = new Map<string, number>();
  const handler = createWebAppHandler({
    kubeConfig,
    reporter: {
      started: (_gvr, instance) => started.set(`${instance.namespace}/${instance.name}`, nowMs()),
      finished(_gvr, instance, result) {
        const key = `${instance.namespace}/${instance.name}`;
        const endMs = nowMs();
        const generation = result.outcome === 'reconciled' ? { generation: result.generation } : {};
        const pass = { namespace: instance.namespace, name: instance.name, outcome: result.outcome, ...generation };
        send({ type: 'reconciled', ...pass, startMs: started.get(key) ?? endMs, endMs });
        started.delete(key);
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
    await controller.register(WEBAPP.gvr, gate.wrap(handler), webAppRegisterOptions(WEBAPP.gvr));
  } catch (err) {
    halt.abort(err);
    await running.catch(() => {});
    stop.removeEventListener('abort', forward);
    throw err;
  }
  send({ type: 'ready' });
  // Gate first (stop taking, drain), then the informers. On a stop, run gives every range up,
  // waits for the drain and releases the member lease: the others start its ranges at once.
  const apply = applyShardChange({ gate, source });
  await membership.run(halt.signal, async (change) => {
    await apply(change);
    send({ type: 'ranges', ranges: change.ranges, members: change.members });
  });
  await running;
  stop.removeEventListener('abort', forward);
}
