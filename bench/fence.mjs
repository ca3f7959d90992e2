// What the server-enforced fence costs (a write carrying the resourceVersion
// its pass read, `@protean/client`'s `precondition`, on by default): the same
// controller on a real kube-apiserver + etcd with it on and off, interleaved.
// Not in run.mjs; nothing here is asserted.
//
//   node bench/fence.mjs                   3 rounds of 60 s per setting
//   node bench/fence.mjs --seconds=20 --rounds=1
//
// 200 parents (a CRD) in one namespace, each applying one child ConfigMap
// with applyOwned, the child read from the object cache (`cache: ctx`). Two
// writers run meanwhile: one changes a random parent's spec 50 times a second
// (each change is a pass that rewrites the child), another patches a random
// child's annotation 50 times a second as a second field manager (the
// other controllers and kubectl users of a real cluster): that is what makes
// a fenced write meet a newer child than its cache showed. Per setting:
// passes, passes per parent change, writes refused as stale (StaleReadError),
// apply requests sent, the controller's CPU, and how long after the writers
// stop every child shows its parent's last value.
import { CoreV1Api } from '@kubernetes/client-node';
import { applyOwned, KubeClient } from '@protean/client';
import { coordinatorModule } from '@protean/coordinator';
import { coreModule, DynamicController, silentLogger, StaleReadError, TOKENS } from '@protean/core';
import { startKubeApiServer } from '@protean/envtest';
import { queueModule } from '@protean/queue';
import { watchManagerModule } from '@protean/watch-manager';
import { Container } from 'inversify';
import 'reflect-metadata';
import { parseArgs } from './lib/args.mjs';
import { createAll, crdManifest, kubeBinDir } from './lib/cluster.mjs';
import { cpuMsSince, median, seededRandom, sleep } from './lib/stats.mjs';

const flags = parseArgs(process.argv.slice(2), ['seconds', 'rounds', 'quick']);
const SECONDS = Number(flags.seconds ?? (flags.quick === true ? 15 : 60));
const ROUNDS = Number(flags.rounds ?? (flags.quick === true ? 1 : 3));
const PARENTS = 200;
const RATE = 50;
const NAMESPACE = 'fence';
const parents = { group: 'bench.protean.dev', version: 'v1', resource: 'fenceparents' };
const configmaps = { group: '', version: 'v1', resource: 'configmaps' };

const api = await startKubeApiServer({ binDir: kubeBinDir() });
const admin = api.kubeConfig;
const results = { on: [], off: [] };
try {
  await admin.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NAMESPACE } } });
  const writer = new KubeClient({ kubeConfig: admin, fieldManager: 'bench-writer' });
  // Through KubeClient: client-node's CRD model would drop x-kubernetes-preserve-unknown-fields (and spec with it).
  await writer.create(
    { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' },
    crdManifest(parents, 'FenceParent'),
  );
  for (const deadline = performance.now() + 60_000; ; await sleep(100)) {
    if (
      await writer.list(parents, { namespace: NAMESPACE }).then(
        () => true,
        () => false,
      )
    )
      break;
    if (performance.now() > deadline) throw new Error('fenceparents not served within 60 s');
  }
  await createAll(0, PARENTS, 16, (i) =>
    writer.create(parents, {
      apiVersion: 'bench.protean.dev/v1',
      kind: 'FenceParent',
      metadata: { name: `p-${i}`, namespace: NAMESPACE },
      spec: { touch: 0 },
    }),
  );
  let round = 0;
  for (let r = 0; r < ROUNDS; r++) {
    for (const setting of r % 2 === 0 ? ['on', 'off'] : ['off', 'on']) {
      results[setting].push(await runOnce(setting === 'on', ++round, writer));
      console.log(JSON.stringify({ setting, ...results[setting].at(-1) }));
    }
  }
  writer.close();
} finally {
  await api.stop();
}
const summary = Object.fromEntries(
  Object.entries(results).map(([k, rs]) => [
    k,
    Object.fromEntries(
      Object.keys(rs[0])
        .filter((f) => f !== 'round')
        .map((f) => [f, median(rs.map((x) => x[f]))]),
    ),
  ]),
);
console.log(
  JSON.stringify(
    { seconds: SECONDS, rounds: ROUNDS, parents: PARENTS, rate: RATE, load: (await import('node:os')).loadavg(), median: summary },
    null,
    1,
  ),
);

async function runOnce(precondition, round, writer) {
  const counts = { passes: 0, stale: 0, applies: 0 };
  const container = new Container();
  container.load(
    coreModule({ workers: 4, resyncPeriodMs: 0, queueMaxRetries: 50, rateLimit: 1_000, burstLimit: 1_000 }, silentLogger()),
    queueModule(),
    watchManagerModule({ kubeConfig: admin }),
    coordinatorModule(),
  );
  container.rebind(TOKENS.controllerObserver).toConstantValue({ onReconcile: () => void counts.passes++ });
  const controller = container.get(DynamicController);
  const abort = new AbortController();
  const running = controller.start(abort.signal);
  const client = new KubeClient({ kubeConfig: admin, fieldManager: `fence-controller` });
  const last = new Map();
  await controller.register(
    parents,
    async (req, ctx) => {
      const owner = await ctx.get(parents, req.namespace, req.name);
      if (owner === undefined) return;
      const child = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `${req.name}-child`, namespace: req.namespace },
        data: { touch: String(owner.spec?.touch ?? 0), round: String(round) },
      };
      counts.applies++;
      try {
        await applyOwned(client, ctx.watcher, configmaps, owner, child, { nodeId: 'child', signal: ctx.signal, cache: ctx, precondition });
      } catch (err) {
        if (err instanceof StaleReadError) counts.stale++;
        throw err;
      }
    },
    { cache: [parents, configmaps] },
  );
  const random = seededRandom(round);
  const cpu = process.cpuUsage();
  const until = performance.now() + SECONDS * 1000;
  const touches = { n: 0 };
  const writers = [
    (async () => {
      while (performance.now() < until) {
        const i = Math.floor(random() * PARENTS);
        const touch = round * 1_000_000 + ++touches.n;
        last.set(i, touch);
        await writer.patch(parents, { namespace: NAMESPACE, name: `p-${i}` }, { spec: { touch } }).catch(() => undefined);
        await sleep(1000 / RATE);
      }
    })(),
    (async () => {
      let n = 0;
      while (performance.now() < until) {
        const i = Math.floor(random() * PARENTS);
        await writer
          .patch(configmaps, { namespace: NAMESPACE, name: `p-${i}-child` }, { metadata: { annotations: { 'bench/other': String(++n) } } })
          .catch(() => undefined);
        await sleep(1000 / RATE);
      }
    })(),
  ];
  await Promise.all(writers);
  const stoppedAt = performance.now();
  // Until every child shows its parent's last value (and this round's).
  for (;;) {
    const children = await client.list(configmaps, { namespace: NAMESPACE });
    const byName = new Map(children.map((c) => [c.metadata.name, c.data ?? {}]));
    const behind = [...Array(PARENTS).keys()].filter((i) => {
      const d = byName.get(`p-${i}-child`);
      return d === undefined || d.round !== String(round) || (last.has(i) && d.touch !== String(last.get(i)));
    });
    if (behind.length === 0) break;
    if (performance.now() - stoppedAt > 120_000) throw new Error(`round ${round}: ${behind.length} children still behind after 120 s`);
    await sleep(100);
  }
  const convergeMs = Math.round(performance.now() - stoppedAt);
  const cpuMs = Math.round(cpuMsSince(cpu));
  abort.abort();
  await running;
  client.close();
  return {
    round,
    touches: touches.n,
    passes: counts.passes,
    passesPerTouch: Number((counts.passes / touches.n).toFixed(3)),
    stale: counts.stale,
    staleShare: Number((counts.stale / Math.max(1, counts.applies)).toFixed(4)),
    applies: counts.applies,
    cpuMs,
    convergeMs,
  };
}
