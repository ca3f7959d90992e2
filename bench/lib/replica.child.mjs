// One replica of the replicas benchmark (replicas.mjs), in its own Node
// process so its CPU is its own. A DynamicController composed as an
// application composes it (core, queue, watch-manager, coordinator modules)
// with sharding as packages/sharding/README.md wires it: ShardMembership (one
// member Lease), kubeShardInformerSource in 'server' mode (its Kubernetes
// informers send the shardSelector of the owned ranges; the server has the
// gate on), and a ShardGate around the handler; the shard key is the namespace.
//
// The handler watches its namespace's `trigger` ConfigMap by name (so the
// ConfigMap informer is sharded too), reads the round from the trigger's
// annotation in the cache, and burns a fixed number of SHA-256 rounds (the
// CPU-bound part). Driven over the IPC channel:
//
//   parent → { type: 'init', kubeConfig, identity, group, leaseNamespace, keysSelector, members, hashRounds, config, parent }
//   child  → { type: 'ready' }                         share applied (once `members` are live), parents registered
//   parent → { type: 'report', id }
//   child  → { type: 'report', id, members, ranges, cached, rounds, cpuMs }
//            cached: objects per resource in the running Kubernetes informers (source.cachedObjects());
//            rounds: { [round]: { passes, firstStart, lastEnd } } (ms, performance.timeOrigin + now)
//   parent → { type: 'progress', id, round }
//   child  → { type: 'report', id, round: { passes, firstStart, lastEnd }, cpuMs }   cheap, polled during a round
//   parent → { type: 'stop' }                          stops gracefully (drain, release the lease), exits 0
import 'reflect-metadata';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { coordinatorModule } from '@protean/coordinator';
import { coreModule, DynamicController, TOKENS } from '@protean/core';
import { queueModule } from '@protean/queue';
import { applyShardChange, KubeMemberLeaseClient, kubeShardInformerSource, ShardGate, ShardMembership } from '@protean/sharding';
import { watchManagerModule } from '@protean/watch-manager';
import { Container } from 'inversify';
import { pino } from 'pino';
import { CONFIGMAPS, ROUND_ANNOTATION, TRIGGER, burn } from './replicaWorkload.mjs';

const gvrKey = (g) => `${g.group}/${g.version}/${g.resource}`;
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
async function init(msg) {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(msg.kubeConfig);
  const logger = pino({ level: 'warn', base: { replica: msg.identity } }, pino.destination(2));
  // The split balances over the namespaces that hold parents (labelled so by the benchmark).
  const listed = await kubeConfig.makeApiClient(CoreV1Api).listNamespace({ labelSelector: msg.keysSelector });
  const namespaces = listed.items.map((n) => n.metadata.name).sort();
  const key = 'namespace';
  const source = kubeShardInformerSource({ kubeConfig, logger, key, ranges: [], mode: 'server' });
  const gate = new ShardGate({ key });
  const membership = new ShardMembership({
    client: new KubeMemberLeaseClient(kubeConfig),
    namespace: msg.leaseNamespace,
    group: msg.group,
    identity: msg.identity,
    keys: () => namespaces,
    logger,
  });
  const container = new Container();
  container.load(coreModule(msg.config, logger), queueModule(), watchManagerModule({ kubeConfig, logger }), coordinatorModule());
  container.rebind(TOKENS.informerSource).toConstantValue(source);
  const controller = container.get(DynamicController);

  const rounds = new Map();
  let sink = 0;
  const handler = async (req, ctx) => {
    const start = now();
    await ctx.watcher.watch({ nodeId: 'trigger', gvr: CONFIGMAPS, namespace: req.namespace, name: TRIGGER });
    const trigger = controller.informer(CONFIGMAPS)?.get({ namespace: req.namespace, name: TRIGGER });
    const round = Number(trigger?.metadata.annotations?.[ROUND_ANNOTATION] ?? '0');
    sink ^= burn(msg.hashRounds);
    const end = now();
    let r = rounds.get(round);
    if (r === undefined) rounds.set(round, (r = { passes: 0, firstStart: start, lastEnd: end }));
    r.passes++;
    r.firstStart = Math.min(r.firstStart, start);
    r.lastEnd = Math.max(r.lastEnd, end);
  };

  const abort = new AbortController();
  const running = controller.start(abort.signal);
  // Gate first (stop taking, drain), then the informers; the latest change is the one in force.
  const listener = applyShardChange({ gate, source });
  let applied = false;
  const apply = (change) => {
    applied = true;
    return listener(change);
  };
  // The first share is applied once all the replicas of this run are live, so no rebalance (and relist) falls in a measured round.
  const membershipRun = membership.run(abort.signal, (change) =>
    !applied && change.members.length < msg.members ? undefined : apply(change),
  );
  const deadline = Date.now() + 60_000;
  while (!applied) {
    if (Date.now() > deadline) throw new Error(`${msg.identity}: fewer than ${msg.members} live members after 60 s`);
    if (membership.members().length >= msg.members)
      await apply({ members: membership.members(), assignment: membership.assignment() ?? new Map(), ranges: membership.ranges() });
    else await sleep(50);
  }
  await controller.register(msg.parent, gate.wrap(handler));

  const report = (id) => {
    const cached = {};
    let liveInformers = 0;
    for (const c of source.cachedObjects()) {
      cached[gvrKey(c.gvr)] = c.objects.length;
      liveInformers += c.informers;
    }
    const cpu = process.cpuUsage();
    return {
      type: 'report',
      id,
      identity: msg.identity,
      members: [...membership.members()],
      ranges: gate.ranges().map((r) => [r.start.toString(16), r.end.toString(16)]),
      cached,
      liveInformers,
      rounds: Object.fromEntries(rounds),
      cpuMs: (cpu.user + cpu.system) / 1000,
      sink,
    };
  };
  process.on('message', async (m) => {
    if (m.type === 'report') process.send(report(m.id));
    else if (m.type === 'progress') {
      // Polled while a round runs: cheap, no informer listing.
      const cpu = process.cpuUsage();
      process.send({ type: 'report', id: m.id, round: rounds.get(m.round) ?? { passes: 0 }, cpuMs: (cpu.user + cpu.system) / 1000 });
    } else if (m.type === 'stop') {
      abort.abort();
      await running;
      await membershipRun;
      process.disconnect();
    }
  });
  process.send({ type: 'ready' });
}

process.once('message', (msg) => {
  if (msg.type !== 'init') throw new Error(`replica.child: expected an init message first, got ${JSON.stringify(msg.type)}`);
  init(msg).catch((err) => {
    process.stderr.write(`${err.stack ?? err}\n`);
    process.exit(1);
  });
});
