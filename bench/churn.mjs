// Kinds that come and go under a running controller, for a long time: a soak
// run, not a benchmark (`pnpm bench` does not run it; nothing here is timed
// against a bound). On a real kube-apiserver + etcd (startKubeApiServer):
//
//   node bench/churn.mjs                    30 minutes
//   node bench/churn.mjs --minutes=2
//
// 10 child kinds (CRDs churn-0 .. churn-9, bench.protean.dev/v1) and 50
// instances of a parent kind; instance i applies one child of kind i mod 10
// named after itself (applyOwned: it watches it first). Every 3 s one child
// kind, picked at random, is deleted if it is installed, else installed again
// (with another schema every other time). Every 30 s the run samples the
// process's RSS and heap, the informers running, the kinds installed, and the
// passes by outcome. At the end every kind is installed again, and the run
// waits until every instance's child exists: an instance lost on the way (taken
// for deleted, dropped after its retries) would never get it back. Prints one
// JSON line per sample and a summary; exits non-zero if an instance was lost.
import { ApiextensionsV1Api, CustomObjectsApi, CoreV1Api } from '@kubernetes/client-node';
import { applyOwned, KubeClient } from '@protean/client';
import { coordinatorModule } from '@protean/coordinator';
import { coreModule, DynamicController, silentLogger, TOKENS } from '@protean/core';
import { startKubeApiServer } from '@protean/envtest';
import { queueModule } from '@protean/queue';
import { watchManagerModule } from '@protean/watch-manager';
import { Container } from 'inversify';
import 'reflect-metadata';
import { parseArgs } from './lib/args.mjs';
import { crdManifest, defineParentKind, kubeBinDir, statusOf } from './lib/cluster.mjs';
import { seededRandom, sleep } from './lib/stats.mjs';

const flags = parseArgs(process.argv.slice(2), ['minutes', 'out', 'quick']);
const MINUTES = Number(flags.minutes ?? (flags.quick === true ? 2 : 30));
const KINDS = 10;
const INSTANCES = 50;
const CHURN_EVERY_MS = 3_000;
const SAMPLE_EVERY_MS = 30_000;
const GROUP = 'bench.protean.dev';
const NAMESPACE = 'churn';
const parent = { group: GROUP, version: 'v1', resource: 'churnparents' };
const childKind = (k) => ({ gvr: { group: GROUP, version: 'v1', resource: `churn${k}s` }, kind: `Churn${k}` });

const api = await startKubeApiServer({ binDir: kubeBinDir() });
const admin = api.kubeConfig;
const crds = admin.makeApiClient(ApiextensionsV1Api);
const objects = admin.makeApiClient(CustomObjectsApi);
const outcomes = new Map();
const observer = { onReconcile: (_gvr, _ms, outcome) => outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1) };

try {
  await admin.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NAMESPACE } } });
  await defineParentKind(admin, parent, 'ChurnParent');
  const installed = new Set();
  for (let k = 0; k < KINDS; k++) {
    await install(k, 0);
    installed.add(k);
  }

  const container = new Container();
  container.load(
    coreModule({ workers: 4, resyncPeriodMs: 0, queueMaxRetries: 20, rateLimit: 1_000, burstLimit: 1_000 }, silentLogger()),
    queueModule(),
    watchManagerModule({ kubeConfig: admin }),
    coordinatorModule(),
  );
  container.rebind(TOKENS.controllerObserver).toConstantValue(observer);
  const controller = container.get(DynamicController);
  const abort = new AbortController();
  const running = controller.start(abort.signal);
  const client = new KubeClient({ kubeConfig: admin, fieldManager: 'churn' });
  const errors = new Map();
  await controller.register(parent, async (req, ctx) => {
    try {
      const owner = await client.get(parent, req, { signal: ctx.signal });
      const { gvr, kind } = childKind(Number(owner.metadata.labels?.['churn-kind']));
      const child = { apiVersion: `${GROUP}/v1`, kind, metadata: { name: req.name, namespace: req.namespace }, spec: {} };
      await applyOwned(client, ctx.watcher, gvr, owner, child, { nodeId: 'child', signal: ctx.signal, force: true });
    } catch (err) {
      // What failed passes failed with, by message shape: reported with the samples.
      const key = `${err?.name}: ${String(err?.message).replace(/\d+/g, 'N').slice(0, 160)}`;
      errors.set(key, (errors.get(key) ?? 0) + 1);
      throw err;
    }
  });
  for (let i = 0; i < INSTANCES; i++) {
    const body = {
      apiVersion: `${GROUP}/v1`,
      kind: 'ChurnParent',
      metadata: { name: `p${i}`, namespace: NAMESPACE, labels: { 'churn-kind': String(i % KINDS) } },
    };
    await objects.createNamespacedCustomObject({ group: GROUP, version: 'v1', plural: parent.resource, namespace: NAMESPACE, body });
  }

  const random = seededRandom(42);
  const started = Date.now();
  const samples = [];
  let nextSample = started;
  let changes = 0;
  while (Date.now() - started < MINUTES * 60_000) {
    const k = Math.floor(random() * KINDS);
    if (installed.has(k)) {
      await remove(k);
      installed.delete(k);
    } else {
      await install(k, changes % 2);
      installed.add(k);
    }
    changes++;
    if (Date.now() >= nextSample) {
      const m = process.memoryUsage();
      const informers = controller.status().informers;
      const gone = informers.filter((inf) =>
        [...Array(KINDS).keys()].some((k) => !installed.has(k) && inf.gvr === `${GROUP}/v1/churn${k}s`),
      );
      const sample = {
        atS: Math.round((Date.now() - started) / 1000),
        rssMiB: +(m.rss / 2 ** 20).toFixed(1),
        heapMiB: +(m.heapUsed / 2 ** 20).toFixed(1),
        informers: informers.length,
        // Informers of kinds that are gone now, and how many of them know it (failing: not served).
        informersOfGoneKinds: gone.length,
        goneAndFailing: gone.filter((inf) => inf.health.failing !== undefined).length,
        kindsInstalled: installed.size,
        changes,
        outcomes: Object.fromEntries(outcomes),
        errors: Object.fromEntries(errors),
      };
      samples.push(sample);
      console.log(JSON.stringify(sample));
      nextSample += SAMPLE_EVERY_MS;
    }
    await sleep(CHURN_EVERY_MS);
  }

  // Every kind back: every instance must get its child again.
  for (let k = 0; k < KINDS; k++) if (!installed.has(k)) await install(k, 0);
  const end = Date.now();
  const missing = new Set(Array.from({ length: INSTANCES }, (_, i) => i));
  while (missing.size > 0 && Date.now() - end < 120_000) {
    for (const i of [...missing]) {
      const { gvr } = childKind(i % KINDS);
      const got = await objects
        .getNamespacedCustomObject({ group: GROUP, version: 'v1', plural: gvr.resource, namespace: NAMESPACE, name: `p${i}` })
        .catch(() => undefined);
      if (got !== undefined) missing.delete(i);
    }
    if (missing.size > 0) await sleep(500);
  }
  const summary = {
    minutes: MINUTES,
    changes,
    convergedAfterLastChangeMs: Date.now() - end,
    lost: [...missing].map((i) => `p${i}`),
    outcomes: Object.fromEntries(outcomes),
    rssMiB: { first: samples[0]?.rssMiB, last: samples.at(-1)?.rssMiB, max: Math.max(...samples.map((s) => s.rssMiB)) },
    heapMiB: { first: samples[0]?.heapMiB, last: samples.at(-1)?.heapMiB, max: Math.max(...samples.map((s) => s.heapMiB)) },
  };
  console.log(JSON.stringify({ summary }));
  abort.abort();
  await running;
  client.close();
  if (missing.size > 0) process.exitCode = 1;
} finally {
  await api.stop();
}

async function install(k, variant) {
  const { gvr, kind } = childKind(k);
  const schema =
    variant === 0
      ? { type: 'object', properties: { spec: { type: 'object', properties: { colour: { type: 'string' } } } } }
      : { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } };
  for (;;) {
    try {
      await crds.createCustomResourceDefinition({ body: crdManifest(gvr, kind, schema) });
      return;
    } catch (err) {
      // Still being deleted (its objects go first): try again in a moment.
      if (statusOf(err) !== 409) throw err;
      await sleep(200);
    }
  }
}

async function remove(k) {
  const { gvr } = childKind(k);
  await crds.deleteCustomResourceDefinition({ name: `${gvr.resource}.${gvr.group}` }).catch((err) => {
    if (statusOf(err) !== 404) throw err;
  });
}
