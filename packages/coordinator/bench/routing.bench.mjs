// Routing throughput of IndexedWatchCoordinator.routeEvent (not a test; run with `pnpm bench`).
//
// Setup, for each N in 100, 1,000, 10,000:
// - 10,000 instances of one parent GVR, spread over 20 namespaces, each with
//   one scalar watch on its own ConfigMap (`cm-<i>` in its namespace);
// - N collection watches on ConfigMaps, one on each of the first N instances.
//   Selector mix over K app values, by i mod 100:
//     90%  app=a<i mod K>,tier in (web,api)                       equality + set
//      5%  app=a<i mod K>,env!=prod                                equality + negative
//      3%  app in (a<i mod K>,a<(i+1) mod K>),tier in (web,api)    no equality: set-based
//      1%  canary,tier notin (db)                                  no equality: Exists
//      1%  !managed-by,tier notin (db)                             no equality: negative only
//   70% of them limited to their instance's namespace, 30% all namespaces.
// - Events: random namespace and name (half of them name a watched
//   ConfigMap), labels app=a<random of K>, tier in {web,api,db}, env in
//   {prod,dev}, managed-by on 95%, canary on 2%; 30% are updates whose old
//   labels carry another app value.
// Workloads:
// - "K = N/10": every app value is watched by about 10 selectors at every N,
//   so an event matches about as many watchers at N=100 as at N=10,000; this
//   isolates how routing scales with the number of watchers it must NOT visit.
// - "K = 1,000": app values fixed, so the watchers an event matches (and
//   must enqueue) grow with N, from about 0.06 to 4.4 per event.
// - "unmatched app": the K = 1,000 watches, with events whose app values
//   (old labels too) no selector names: the cost of the index alone.
// - "naive": the seed system's algorithm on the K = 1,000 watches (test every
//   collection request of the GVR on every event, plus the scalar lookup).
//
// Method: events are generated up front with a seeded PRNG and all routers
// are built before timing. Time is the process's CPU time (user + system,
// process.cpuUsage), not wall-clock, so time spent descheduled on a busy
// shared machine does not count; routing is single-threaded, and GC helper
// threads only make the figures conservative. Per case, calibration doubles
// the batch until one pass takes >= 200 ms; then 3 more untimed passes finish
// the warm-up (the JIT needs about a second of routing to settle). Then 5
// rounds, each timing one pass of every case in turn (interleaved, so a load
// swing hits every case alike); the rate is the median of the 5. The enqueue
// callback only counts.
import { gvrKey, parseSelector, silentLogger } from '@protean/core';
import { IndexedWatchCoordinator } from '../dist/index.js';

const INSTANCES = 10_000;
const NAMESPACES = 20;
const SIZES = [100, 1_000, 10_000];
const ROUNDS = 5;
const WARMUP_PASSES = 3;
const MIN_PASS_MS = 200;
const EVENT_POOL = 50_000;

const parent = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const configmaps = { group: '', version: 'v1', resource: 'configmaps' };

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function selectorText(i, k) {
  const app = `a${i % k}`;
  const kind = i % 100;
  if (kind < 90) return `app=${app},tier in (web,api)`;
  if (kind < 95) return `app=${app},env!=prod`;
  if (kind < 98) return `app in (${app},a${(i + 1) % k}),tier in (web,api)`;
  if (kind < 99) return 'canary,tier notin (db)';
  return '!managed-by,tier notin (db)';
}

function buildRequests(n, k) {
  const rnd = mulberry32(7);
  const requests = [];
  for (let i = 0; i < INSTANCES; i++) {
    const namespace = `ns-${i % NAMESPACES}`;
    const instance = { namespace, name: `app-${i}` };
    const reqs = [{ nodeId: 'config', gvr: configmaps, name: `cm-${i}`, namespace }];
    if (i < n) {
      const scoped = rnd() < 0.7;
      reqs.push({ nodeId: 'related', gvr: configmaps, namespace: scoped ? namespace : '', selector: parseSelector(selectorText(i, k)) });
    }
    requests.push({ instance, reqs });
  }
  return requests;
}

/** App values are a<0..k-1>, shifted by `appOffset` (out of every selector's range when large). */
function buildEvents(k, appOffset = 0) {
  const rnd = mulberry32(42);
  const pick = (arr) => arr[Math.floor(rnd() * arr.length)];
  const app = () => `a${Math.floor(rnd() * k) + appOffset}`;
  const events = new Array(EVENT_POOL);
  for (let e = 0; e < EVENT_POOL; e++) {
    const i = Math.floor(rnd() * INSTANCES * 2);
    const namespace = `ns-${Math.floor(rnd() * NAMESPACES)}`;
    const name = i < INSTANCES ? `cm-${i}` : `other-${i}`;
    const labels = { app: app(), tier: pick(['web', 'api', 'db']), env: pick(['prod', 'dev']) };
    if (rnd() < 0.95) labels['managed-by'] = 'helm';
    if (rnd() < 0.02) labels.canary = 'true';
    events[e] =
      rnd() < 0.3
        ? { type: 'update', gvr: configmaps, namespace, name, labels, oldLabels: { ...labels, app: app() } }
        : { type: 'add', gvr: configmaps, namespace, name, labels };
  }
  return events;
}

/** The seed system's routing: scalar map lookup plus a scan of every collection request. */
class NaiveRouter {
  constructor(enqueue) {
    this.enqueue = enqueue;
    this.scalar = new Map();
    this.collection = new Map();
  }
  add(instance, req) {
    const key = gvrKey(req.gvr);
    if (req.selector === undefined) {
      let byName = this.scalar.get(key);
      if (!byName) this.scalar.set(key, (byName = new Map()));
      const nn = `${req.namespace}/${req.name}`;
      byName.set(nn, [...(byName.get(nn) ?? []), instance]);
    } else {
      let list = this.collection.get(key);
      if (!list) this.collection.set(key, (list = []));
      list.push({ instance, namespace: req.namespace ?? '', selector: req.selector });
    }
  }
  routeEvent(event) {
    const key = gvrKey(event.gvr);
    const matched = new Set(this.scalar.get(key)?.get(`${event.namespace}/${event.name}`) ?? []);
    for (const entry of this.collection.get(key) ?? []) {
      if (entry.namespace !== '' && entry.namespace !== event.namespace) continue;
      if (entry.selector.matches(event.labels) || (event.oldLabels !== undefined && entry.selector.matches(event.oldLabels))) {
        matched.add(entry.instance);
      }
    }
    for (const instance of matched) this.enqueue(parent, instance);
  }
}

const watchManager = {
  ensureWatch: () => Promise.resolve(),
  releaseWatch: () => {},
  getInformer: () => undefined,
  activeWatchCount: () => 0,
  shutdown: () => {},
};

let enqueued = 0;
const enqueue = () => {
  enqueued++;
};

async function buildRouters(n, k) {
  const coordinator = new IndexedWatchCoordinator(watchManager, enqueue, silentLogger());
  const naive = new NaiveRouter(enqueue);
  for (const { instance, reqs } of buildRequests(n, k)) {
    const w = coordinator.forInstance(parent, instance);
    for (const req of reqs) {
      await w.watch(req);
      naive.add(instance, req);
    }
    w.done(true);
  }
  return { coordinator, naive };
}

/** CPU milliseconds one pass of `count` events takes (cycling through the pool). */
function timePass(c) {
  const { watchCoordinator, events, count } = c;
  enqueued = 0;
  const t0 = process.cpuUsage();
  for (let i = 0; i < count; i++) watchCoordinator.routeEvent(events[i % events.length]);
  const used = process.cpuUsage(t0);
  return (used.user + used.system) / 1000;
}

const fixedK = 1_000;
const fixedEvents = buildEvents(fixedK);
const unmatchedEvents = buildEvents(fixedK, 1_000_000);
const cases = [];
for (const n of SIZES) {
  const fixed = await buildRouters(n, fixedK);
  cases.push({ n, label: 'fixed', watchCoordinator: fixed.coordinator, events: fixedEvents });
  cases.push({ n, label: 'unmatched', watchCoordinator: fixed.coordinator, events: unmatchedEvents });
  cases.push({ n, label: 'naive', watchCoordinator: fixed.naive, events: fixedEvents });
  const scaled = await buildRouters(n, n / 10);
  cases.push({ n, label: 'scaled', watchCoordinator: scaled.coordinator, events: buildEvents(n / 10) });
}
for (const c of cases) {
  c.count = 64;
  while (timePass(c) < MIN_PASS_MS) c.count *= 2;
  for (let i = 0; i < WARMUP_PASSES; i++) timePass(c);
  c.rates = [];
}
for (let round = 0; round < ROUNDS; round++) {
  for (const c of cases) {
    c.rates.push((c.count / timePass(c)) * 1000);
    c.enqueuesPerEvent = enqueued / c.count;
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const get = (n, label) => cases.find((c) => c.n === n && c.label === label);
const rate = (n, label) => median(get(n, label).rates);
const fmt = (x) => Math.round(x).toLocaleString('en-US');

for (const n of SIZES) {
  if (
    get(n, 'fixed').count === get(n, 'naive').count &&
    Math.abs(get(n, 'fixed').enqueuesPerEvent - get(n, 'naive').enqueuesPerEvent) > 1e-9
  ) {
    throw new Error(`indexed and naive routing disagree at N=${n}`);
  }
}
console.log('Routed events per CPU-second (median of 5); 10,000 instances with one scalar watch each, N collection watches.');
console.log(
  '| N | K = N/10: events/s | enqueues/event | K = 1,000: events/s | enqueues/event | unmatched app: events/s | naive (K = 1,000): events/s |',
);
console.log('|---:|---:|---:|---:|---:|---:|---:|');
for (const n of SIZES) {
  const s = get(n, 'scaled');
  const f = get(n, 'fixed');
  console.log(
    `| ${fmt(n)} | ${fmt(rate(n, 'scaled'))} | ${s.enqueuesPerEvent.toFixed(2)} | ${fmt(rate(n, 'fixed'))} | ${f.enqueuesPerEvent.toFixed(2)} | ` +
      `${fmt(rate(n, 'unmatched'))} | ${fmt(rate(n, 'naive'))} |`,
  );
}
const slowdown = (label) => (rate(SIZES[0], label) / rate(SIZES.at(-1), label)).toFixed(2);
console.log(
  `rate(N=${fmt(SIZES[0])}) / rate(N=${fmt(SIZES.at(-1))}): K = N/10 ${slowdown('scaled')}x (target <= 2x), ` +
    `K = 1,000 ${slowdown('fixed')}x, unmatched app ${slowdown('unmatched')}x, naive ${slowdown('naive')}x`,
);
