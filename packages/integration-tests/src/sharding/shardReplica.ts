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
// members and, per resource, the keys each informer caches (the raw
// Kubernetes informers, not the filtered view) and shows its handlers.
// SIGTERM stops it gracefully (drain, release the member lease).
import 'reflect-metadata';
import { closeSync, openSync, writeSync } from 'node:fs';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { coordinatorModule } from '@protean/coordinator';
import {
  coreModule,
  createLogger,
  DynamicController,
  gvrKey,
  TOKENS,
  type GroupVersionResource,
  type Handler,
  type HandlerRegistration,
  type Informer,
  type InformerOptions,
  type InformerSource,
  type NamespacedName,
  type ResourceEventHandler,
} from '@protean/core';
import { queueModule } from '@protean/queue';
import {
  applyShardChange,
  detectShardSelectorSupport,
  fnv1a64,
  KubeMemberLeaseClient,
  ShardedInformerSource,
  ShardGate,
  shardSelector,
  ShardMembership,
  type HashRange,
  type ShardChange,
} from '@protean/sharding';
import { KubernetesInformerSource, watchManagerModule } from '@protean/watch-manager';
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

/** What a server-side shard with no range asks for, as kubeShardInformerSource does: `[0, 1)`. */
const NOTHING: readonly HashRange[] = [{ start: 0n, end: 1n }];

/** A raw informer and whether it was started (re-selection builds informers that may be dropped before they run). */
class CountedInformer implements Informer {
  running = false;
  constructor(readonly inner: Informer) {}
  get gvr(): GroupVersionResource {
    return this.inner.gvr;
  }
  run(signal: AbortSignal): void {
    this.running = true;
    this.inner.run(signal);
  }
  hasSynced(): boolean {
    return this.inner.hasSynced();
  }
  isStopped(): boolean {
    return this.inner.isStopped();
  }
  addEventHandler(handler: ResourceEventHandler): HandlerRegistration {
    return this.inner.addEventHandler(handler);
  }
  removeEventHandler(registration: HandlerRegistration): void {
    this.inner.removeEventHandler(registration);
  }
  list(): ReturnType<Informer['list']> {
    return this.inner.list();
  }
  get(key: NamespacedName): ReturnType<Informer['get']> {
    return this.inner.get(key);
  }
  setWatchErrorHandler(fn: (err: Error) => void): void {
    this.inner.setWatchErrorHandler(fn);
  }
  health(): ReturnType<NonNullable<Informer['health']>> {
    return this.inner.health?.() ?? { synced: this.inner.hasSynced(), idleMs: undefined, relists: 0, failing: undefined };
  }
}

/** Records every raw informer its inner source creates, so the replica can count what it caches. */
class CountingSource implements InformerSource {
  constructor(
    private readonly inner: InformerSource,
    private readonly created: CountedInformer[],
  ) {}
  createInformer(gvr: GroupVersionResource, opts: InformerOptions): Informer {
    const informer = new CountedInformer(this.inner.createInformer(gvr, opts));
    this.created.push(informer);
    return informer;
  }
}

const keyOf = (o: { metadata: { namespace?: string; name: string } }): string => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
const hex = (r: HashRange): [string, string] => [r.start.toString(16), r.end.toString(16)];

async function main(): Promise<void> {
  const identity = required('REPLICA_IDENTITY');
  const auditFile = required('REPLICA_AUDIT');
  const leaseNamespace = required('REPLICA_LEASE_NAMESPACE');
  const group = required('REPLICA_GROUP');
  // Apply the first share only once this many members are live, so the first informers are built for it (see the test).
  const startWithMembers = Number(process.env['REPLICA_START_WITH_MEMBERS'] ?? '1');
  const leaseDurationMs = optionalMs('REPLICA_LEASE_DURATION_MS');
  const renewDeadlineMs = optionalMs('REPLICA_RENEW_DEADLINE_MS');
  const retryPeriodMs = optionalMs('REPLICA_RETRY_PERIOD_MS');
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(required('PROTEAN_KUBECONFIG'));
  const logger = createLogger({ level: 'info', base: { replica: identity } });

  const { mode } = await detectShardSelectorSupport(kubeConfig, { logger });
  // The split balances over the namespaces present at start; every replica lists the same ones.
  const namespaces = (await kubeConfig.makeApiClient(CoreV1Api).listNamespace()).items.map((n) => n.metadata!.name!).sort();

  const raw: CountedInformer[] = [];
  const key = 'namespace';
  const source =
    mode === 'server'
      ? new ShardedInformerSource(
          (ranges) =>
            new CountingSource(
              new KubernetesInformerSource({
                kubeConfig,
                logger,
                shardSelector: shardSelector(key, ranges.length === 0 ? NOTHING : ranges),
              }),
              raw,
            ),
          { key },
        )
      : new ShardedInformerSource(new CountingSource(new KubernetesInformerSource({ kubeConfig, logger }), raw), { key });
  const gate = new ShardGate({ key });
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
  let applied = false;
  const apply = async (change: ShardChange): Promise<void> => {
    applied = true;
    await listener(change);
    logger.info({ ranges: change.ranges.map(hex), members: change.members }, 'share applied');
  };
  // Before enough members are live a change is not applied (nothing is reconciled, so the promise may settle at once).
  const membershipRun = membership.run(abort.signal, (change) =>
    !applied && change.members.length < startWithMembers ? undefined : apply(change),
  );
  const deadline = Date.now() + 60_000;
  while (!applied && !abort.signal.aborted) {
    if (Date.now() > deadline) throw new Error(`shardReplica: fewer than ${startWithMembers} live members after 60 s`);
    // The change that made enough members live may have left this replica's ranges as they were: apply the current ones.
    if (membership.members().length >= startWithMembers)
      await apply({ members: membership.members(), assignment: membership.assignment() ?? new Map(), ranges: membership.ranges() });
    else await new Promise((r) => setTimeout(r, 50));
  }
  await controller.register(PARENTS, gate.wrap(handler));
  logger.info({ mode }, 'replica registered its parents');

  process.on('message', (msg: { type?: string; id?: number }) => {
    if (msg?.type !== 'report') return;
    const cached: Record<string, string[]> = {};
    const shown: Record<string, string[]> = {};
    for (const informer of raw) {
      if (!informer.running || informer.isStopped()) continue;
      (cached[gvrKey(informer.gvr)] ??= []).push(...informer.list().map(keyOf));
    }
    for (const gvr of [PARENTS, CONFIGMAPS]) {
      const view = controller.informer(gvr);
      if (view !== undefined) shown[gvrKey(gvr)] = view.list().map(keyOf);
    }
    const report: ReplicaReport = {
      id: msg.id ?? 0,
      identity,
      mode,
      members: [...membership.members()],
      ranges: gate.ranges().map(hex),
      cached,
      shown,
      liveRawInformers: raw.filter((i) => i.running && !i.isStopped()).length,
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
