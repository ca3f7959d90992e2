// One replica of a sharded controller, run as a child process by
// threeReplicas.real.test.ts (from dist/, after `tsc -b`). It composes the
// DynamicController as the sharding README says: ShardMembership (one
// Lease per replica), a sharded informer source (the API server's
// shardSelector when the gate is on, the client-side filter when not) and
// a ShardGate around the handler, with the namespace as the shard key.
//
// The handler reads its parent's generation from the cache, watches the
// parent's child ConfigMap (`<parent>-child`, same namespace; so the
// child informer is sharded too), then takes 5-20 ms, and appends a
// `start` and an `end` line per pass to the shared audit file. Over the
// IPC channel the test asks for a `report`: the owned ranges, the live
// members and, per resource, the keys its informers cache
// (`cachedObjects()` of the source), the keys the controller's informer
// shows, and how many listed objects the client-side filter dropped.
// SIGTERM stops it gracefully (drain, release the member lease).
import 'reflect-metadata';
import { closeSync, openSync, writeSync } from 'node:fs';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { coordinatorModule } from '@protean/coordinator';
import { coreModule, createLogger, DynamicController, gvrKey, TOKENS, type Handler } from '@protean/core';
import { queueModule } from '@protean/queue';
import {
  applyShardChange,
  detectShardSelectorSupport,
  fnv1a64,
  KubeMemberLeaseClient,
  kubeShardInformerSource,
  ShardGate,
  ShardMembership,
  type HashRange,
  type ShardChange,
} from '@protean/sharding';
import { watchManagerModule } from '@protean/watch-manager';
import { Container } from 'inversify';
import { CHILD_SUFFIX, CONFIGMAPS, PARENTS, type AuditLine, type ReplicaReport } from './shardAudit.js';

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`shardReplica: environment variable ${name} is required`);
  return value;
}

function optionalMs(name: string): number | undefined {
  const value = process.env[name];
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`shardReplica: ${name} must be a positive integer of milliseconds, got ${value}`);
  return n;
}

const keyOf = (o: { metadata: { namespace?: string; name: string } }): string => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
const hex = (r: HashRange): [string, string] => [r.start.toString(16), r.end.toString(16)];

async function main(): Promise<void> {
  const identity = required('REPLICA_IDENTITY');
  const auditFile = required('REPLICA_AUDIT');
  const leaseNamespace = required('REPLICA_LEASE_NAMESPACE');
  const group = required('REPLICA_GROUP');
  const leaseDurationMs = optionalMs('REPLICA_LEASE_DURATION_MS');
  const renewDeadlineMs = optionalMs('REPLICA_RENEW_DEADLINE_MS');
  const retryPeriodMs = optionalMs('REPLICA_RETRY_PERIOD_MS');
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(required('PROTEAN_KUBECONFIG'));
  const logger = createLogger({ level: 'info', base: { replica: identity } });

  const { mode } = await detectShardSelectorSupport(kubeConfig, { logger });
  // The split balances over the namespaces present at start; every replica lists the same ones.
  const namespaces = (await kubeConfig.makeApiClient(CoreV1Api).listNamespace()).items.map((n) => n.metadata!.name!).sort();

  const key = 'namespace';
  const source = kubeShardInformerSource({ kubeConfig, logger, key, ranges: [], mode });
  const membership = new ShardMembership({
    client: new KubeMemberLeaseClient(kubeConfig),
    namespace: leaseNamespace,
    group,
    identity,
    keys: () => namespaces,
    logger,
    ...(leaseDurationMs === undefined ? {} : { leaseDurationMs }),
    ...(renewDeadlineMs === undefined ? {} : { renewDeadlineMs }),
    ...(retryPeriodMs === undefined ? {} : { retryPeriodMs }),
  });
  const gate = new ShardGate({ key, validity: membership.validity });

  const container = new Container();
  container.load(
    coreModule({ workers: 4, resyncPeriodMs: 0, minRetryDelayMs: 20, maxRetryDelayMs: 1_000, rateLimit: 1_000, burstLimit: 1_000 }, logger),
    queueModule(),
    watchManagerModule({ kubeConfig, backoff: { initialMs: 100, maxMs: 1_000 } }),
    coordinatorModule(),
  );
  container.rebind(TOKENS.informerSource).toConstantValue(source);
  const controller = container.get(DynamicController);

  const audit = openSync(auditFile, 'a');
  // One write per line on an O_APPEND descriptor: lines of several processes never interleave.
  const record = (line: AuditLine): void => void writeSync(audit, `${JSON.stringify(line)}\n`);
  const now = (): number => performance.timeOrigin + performance.now();

  const handler: Handler = async (req, ctx) => {
    const instance = `${req.namespace}/${req.name}`;
    const generation = controller.informer(PARENTS)?.get(req)?.metadata.generation ?? 0;
    record({ replica: identity, instance, event: 'start', at: now(), generation });
    let child = false;
    try {
      await ctx.watcher.watch({ nodeId: 'child', gvr: CONFIGMAPS, namespace: req.namespace, name: `${req.name}${CHILD_SUFFIX}` });
      child = controller.informer(CONFIGMAPS)?.get({ namespace: req.namespace, name: `${req.name}${CHILD_SUFFIX}` }) !== undefined;
      // 5 to 20 ms, spread over instances and passes, long enough for an overlap to show.
      const ms = 5 + Number((fnv1a64(`${instance}@${generation}`) >> 8n) % 16n);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        ctx.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
    } finally {
      record({ replica: identity, instance, event: 'end', at: now(), generation, child, aborted: ctx.signal.aborted });
    }
  };

  const abort = new AbortController();
  process.once('SIGTERM', () => {
    logger.info('SIGTERM received; stopping');
    abort.abort(new Error('SIGTERM'));
  });
  const running = controller.start(abort.signal);

  // The README's listener: gate first (stop taking, drain), then the informers; the latest change is the one in force.
  const listener = applyShardChange({ gate, source });
  const membershipRun = membership.run(abort.signal, async (change: ShardChange) => {
    await listener(change);
    logger.info({ ranges: change.ranges.map(hex), members: change.members }, 'share applied');
  });
  await controller.register(PARENTS, gate.wrap(handler));
  logger.info({ mode }, 'replica registered its parents');

  process.on('message', (msg: { type?: string; id?: number }) => {
    if (msg?.type !== 'report') return;
    const cached: Record<string, string[]> = {};
    const shown: Record<string, string[]> = {};
    const filteredOut: Record<string, number> = {};
    let liveRawInformers = 0;
    let synced = true;
    for (const c of source.cachedObjects()) {
      (cached[gvrKey(c.gvr)] ??= []).push(...c.objects.map(keyOf));
      filteredOut[gvrKey(c.gvr)] = (filteredOut[gvrKey(c.gvr)] ?? 0) + c.filteredOut;
      liveRawInformers += c.informers;
    }
    for (const gvr of [PARENTS, CONFIGMAPS]) {
      const view = controller.informer(gvr);
      if (view !== undefined) shown[gvrKey(gvr)] = view.list().map(keyOf);
      synced &&= view?.hasSynced() === true;
    }
    const report: ReplicaReport = {
      id: msg.id ?? 0,
      identity,
      mode,
      members: [...membership.members()],
      ranges: gate.ranges().map(hex),
      cached,
      shown,
      filteredOut,
      liveRawInformers,
      synced,
    };
    process.send?.(report);
  });
  process.send?.({ type: 'ready' });

  await running;
  await membershipRun;
  closeSync(audit);
  logger.info('replica stopped');
  process.disconnect?.();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
  process.disconnect?.();
});
