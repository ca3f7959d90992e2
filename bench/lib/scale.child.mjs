// The controller under test of the scale benchmark (scale.mjs), in its own
// Node process (`--expose-gc`) so its RSS, heap, sockets and CPU are its own.
// Driven over the IPC channel by the parent:
//
//   parent → { type: 'init', kubeConfig, informerOptions, parent, children, parents, objectsPerKind, config }
//   child  → { type: 'ready', baseline }           composed and started, nothing registered
//   parent → { type: 'sync' }
//   child  → { type: 'synced', ... }               every child informer synced and every parent's first pass done
//   parent → { type: 'settle' }
//   child  → { type: 'settled', memory }           after a pause and forced GCs
//   parent → { type: 'burst', expected }
//   child  → { type: 'burst-ready' }
//   child  → { type: 'burst-done', ... }           `expected` child updates seen and the controller quiet
//   parent → { type: 'stop' }                      the child stops its controller and exits 0
//
// The controller is composed as an application composes it (core, queue,
// watch-manager and coordinator modules in one container); the only addition
// is a decorator of the bound watch manager factory that counts the events
// the watch manager hands to the controller.
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { coordinatorModule } from '@protean/coordinator';
import { coreModule, DynamicController, parseSelector, TOKENS } from '@protean/core';
import { queueModule } from '@protean/queue';
import { watchManagerModule } from '@protean/watch-manager';
import { Container } from 'inversify';
import { pino } from 'pino';

const send = (msg) => process.send(msg);
const cpuMs = (since) => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const gvrKey = (g) => `${g.group}/${g.version}/${g.resource}`;

/** Peak RSS of this process since start (or since the parent last reset it), in bytes. */
function peakRss() {
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
  return match === null ? undefined : Number(match[1]) * 1024;
}

async function settledMemory() {
  await sleep(1000);
  for (let i = 0; i < 3; i++) globalThis.gc();
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers };
}

let state;

async function init(msg) {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(msg.kubeConfig);
  // Warnings (a fallback from streaming lists, a failing informer) go to stderr and are counted.
  const counts = { warn: 0, error: 0 };
  const logger = pino(
    {
      level: 'warn',
      hooks: {
        logMethod(args, method, level) {
          if (level >= 50) counts.error++;
          else if (level >= 40) counts.warn++;
          return method.apply(this, args);
        },
      },
    },
    pino.destination(2),
  );
  const container = new Container();
  container.load(
    coreModule(msg.config, logger),
    queueModule(),
    watchManagerModule({ kubeConfig, ...msg.informerOptions, watchManager: { syncTimeoutMs: 600_000 } }),
    coordinatorModule(),
  );
  const childKeys = new Set(msg.children.map(gvrKey));
  const events = { initial: 0, add: 0, update: 0, delete: 0, parent: 0 };
  let onChildUpdate = () => undefined;
  container.onActivation(
    TOKENS.watchManagerFactory,
    (_ctx, factory) => (deps) =>
      factory({
        ...deps,
        onEvent: (ev) => {
          if (!childKeys.has(gvrKey(ev.gvr))) events.parent++;
          else if (ev.initialList === true) events.initial++;
          else {
            events[ev.type]++;
            if (ev.type === 'update') onChildUpdate();
          }
          deps.onEvent(ev);
        },
      }),
  );
  const controller = container.get(DynamicController);
  const abort = new AbortController();
  const running = controller.start(abort.signal);
  for (let i = 0; i < 3; i++) globalThis.gc();
  state = {
    msg,
    controller,
    abort,
    running,
    events,
    counts,
    setOnChildUpdate: (fn) => (onChildUpdate = fn),
    passes: 0,
    firstPassesDone: new Set(),
    handlersRunning: 0,
    handlerErrors: 0,
    lastHandlerAt: 0,
  };
  send({ type: 'ready', baseline: { ...(await settledMemory()), pid: process.pid } });
}

/** The parent's handler: one collection watch, with the instance's selector, on every child kind at once. */
function handler(children) {
  return async (req, ctx) => {
    state.handlersRunning++;
    state.passes++;
    try {
      const selector = parseSelector(`parent=${req.name}`);
      await Promise.all(children.map((gvr, i) => ctx.watcher.watch({ nodeId: `kind${i}`, gvr, namespace: req.namespace, selector })));
      ctx.watcher.done(true);
      state.firstPassesDone.add(req.name);
    } catch (err) {
      state.handlerErrors++;
      throw err;
    } finally {
      state.handlersRunning--;
      state.lastHandlerAt = performance.now();
    }
  };
}

async function sync() {
  const { msg, controller, events } = state;
  const heap = { peak: 0 };
  const sampler = setInterval(() => {
    const used = process.memoryUsage().heapUsed;
    if (used > heap.peak) heap.peak = used;
  }, 50);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await controller.register(msg.parent, handler(msg.children));
  const registeredMs = performance.now() - t0;
  const syncedAt = new Array(msg.children.length).fill(undefined);
  let firstHandlerMs;
  for (;;) {
    const now = performance.now();
    if (firstHandlerMs === undefined && state.passes > 0) firstHandlerMs = now - t0;
    let all = true;
    msg.children.forEach((gvr, i) => {
      if (syncedAt[i] !== undefined) return;
      if (controller.informer(gvr)?.hasSynced() === true) syncedAt[i] = now - t0;
      else all = false;
    });
    if (all && state.firstPassesDone.size === msg.parents) break;
    if (now - t0 > 900_000) throw new Error(`not synced after 900 s: ${syncedAt.filter((t) => t === undefined).length} informers pending`);
    await sleep(5);
  }
  const totalMs = performance.now() - t0;
  const cpu = cpuMs(cpu0);
  clearInterval(sampler);
  const sorted = syncedAt.slice().sort((a, b) => a - b);
  const listModes = {};
  for (const gvr of msg.children) {
    const mode = controller.informer(gvr)?.health?.()?.listMode ?? 'unknown';
    listModes[mode] = (listModes[mode] ?? 0) + 1;
  }
  send({
    type: 'synced',
    registeredMs,
    firstHandlerMs,
    totalMs,
    informerSyncedMs: { first: sorted[0], p50: sorted[Math.floor((sorted.length - 1) / 2)], last: sorted.at(-1) },
    cpuMs: cpu,
    events: { ...events },
    peakRss: peakRss(),
    peakHeapUsed: heap.peak,
    listModes,
    passes: state.passes,
    handlerErrors: state.handlerErrors,
    logged: { ...state.counts },
  });
}

async function burst(expected) {
  const { controller, events } = state;
  const before = { ...events };
  const passes0 = state.passes;
  let seen = 0;
  let allSeenAt;
  state.setOnChildUpdate(() => {
    if (++seen === expected) allSeenAt = performance.now();
  });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  send({ type: 'burst-ready' });
  const quiet = () =>
    allSeenAt !== undefined &&
    state.handlersRunning === 0 &&
    controller.queueLength() === 0 &&
    performance.now() - state.lastHandlerAt > 20;
  while (!quiet()) {
    if (performance.now() - t0 > 600_000) throw new Error(`burst: saw ${seen} of ${expected} updates after 600 s`);
    await sleep(5);
  }
  const doneAt = performance.now();
  const cpu = cpuMs(cpu0);
  send({
    type: 'burst-done',
    cpuMs: cpu,
    updates: seen,
    events: Object.fromEntries(Object.entries(events).map(([k, v]) => [k, v - before[k]])),
    allSeenMs: allSeenAt - t0,
    quietMs: doneAt - t0,
    passes: state.passes - passes0,
    peakRss: peakRss(),
    handlerErrors: state.handlerErrors,
    logged: { ...state.counts },
  });
}

async function stop() {
  state.abort.abort();
  await state.running;
  process.exit(0);
}

process.on('message', (msg) => {
  const step =
    msg.type === 'init'
      ? init(msg)
      : msg.type === 'sync'
        ? sync()
        : msg.type === 'settle'
          ? settledMemory().then((memory) => send({ type: 'settled', memory }))
          : msg.type === 'burst'
            ? burst(msg.expected)
            : msg.type === 'stop'
              ? stop()
              : Promise.reject(new Error(`unknown message type ${JSON.stringify(msg.type)}`));
  step.catch((err) => {
    send({ type: 'error', message: err.stack ?? String(err) });
    process.exit(1);
  });
});
