// Routing throughput: events per CPU-second through IndexedWatchCoordinator.routeEvent,
// and through the seed system's algorithm (a full scan) on the same watches.
//
// Setup, for each N in 100, 1,000, 10,000 (quick: 100, 1,000):
// 10,000 instances of one parent GVR over 20 namespaces, each with one scalar
// watch on its own ConfigMap, and the first N instances also with one
// collection watch on ConfigMaps (70% in their own namespace, 30% in all).
// Selectors: 90% `app=<a>,tier in (web,api)`, 5% `app in (<a>,<a+1>)`,
// 4% `app=<a>,env!=prod`, 1% `canary,tier notin (db)` (no equality to index).
// The watch manager is @protean/core/testing's FakeWatchManager (ensureWatch
// resolves at once); the enqueue callback only counts.
// Events (20,000, seeded, generated before timing): half name a watched
// ConfigMap in its namespace, half an unwatched name; labels app=<random of
// K values>, tier, env, canary on 2%; 30% are updates whose old labels carry
// another app value. Four workloads per N:
// - K = N/10: each app value is named by about 10 selectors at every N, so an
//   event matches about as many watches at N = 100 as at 10,000; this shows the
//   cost of the watches routing must skip.
// - K = 1,000: app values fixed, so matches (and enqueues) grow with N.
// - unmatched app: the K = 1,000 watches, with events whose app values (old
//   labels too) no selector names: the cost of the index alone.
// - naive: the seed system's algorithm on the K = 1,000 watches and events
//   (the scalar lookup, then every collection watch of the GVR tested against
//   every event), the reference the index is compared with. Before timing, the
//   first 2,000 events are routed by both and must enqueue the same instances.
//
// Method: time is the process's CPU time (process.cpuUsage, user + system), so
// time spent descheduled on the shared machine does not count. Per case the
// batch doubles until one pass takes >= 200 ms, then 3 untimed warm-up passes;
// then 5 rounds, each timing one pass of every case in turn (interleaved, so a
// load swing hits all cases alike). Reported: the median of the 5 rates.
import { gvrKey, parseSelector, silentLogger } from '@protean/core';
import { IndexedWatchCoordinator } from '@protean/coordinator';
import { FakeWatchManager } from '@protean/core/testing';
import { parseArgs } from './lib/args.mjs';
import { emitResult, progress } from './lib/report.mjs';
import { cpuMsSince, median, seededRandom } from './lib/stats.mjs';

const flags = parseArgs(process.argv.slice(2), ['quick', 'out']);
const quick = flags.quick === true;
const INSTANCES = 10_000;
const NAMESPACES = 20;
const SIZES = quick ? [100, 1_000] : [100, 1_000, 10_000];
const ROUNDS = quick ? 3 : 5;
const WARMUP_PASSES = quick ? 1 : 3;
const MIN_PASS_MS = quick ? 50 : 200;
const EVENTS = 20_000;
const FIXED_K = 1_000;
/** Shifts app values out of every selector's range (the "unmatched app" events). */
const UNMATCHED_APP_OFFSET = 1_000_000;
const AGREEMENT_EVENTS = 2_000;

const parent = { group: 'bench.protean.dev', version: 'v1', resource: 'parents' };
const configmaps = { group: '', version: 'v1', resource: 'configmaps' };
const namespaceOf = (i) => `ns-${i % NAMESPACES}`;

function selectorFor(i, k) {
  const app = `a${i % k}`;
  const kind = i % 100;
  if (kind < 90) return `app=${app},tier in (web,api)`;
  if (kind < 95) return `app in (${app},a${(i + 1) % k})`;
  if (kind < 99) return `app=${app},env!=prod`;
  return 'canary,tier notin (db)';
}

let enqueued = 0;
const countEnqueue = () => {
  enqueued++;
};

/**
 * The seed system's routing, for reference: a map lookup for scalar watches,
 * then every collection watch of the event's GVR tested against its labels
 * (and old labels); each matched instance enqueued once.
 */
class NaiveRouter {
  scalar = new Map();
  collection = new Map();

  add(instance, request) {
    const key = gvrKey(request.gvr);
    if (request.selector === undefined) {
      let byName = this.scalar.get(key);
      if (byName === undefined) this.scalar.set(key, (byName = new Map()));
      const at = `${request.namespace}/${request.name}`;
      byName.set(at, [...(byName.get(at) ?? []), instance]);
    } else {
      let list = this.collection.get(key);
      if (list === undefined) this.collection.set(key, (list = []));
      list.push({ instance, namespace: request.namespace ?? '', selector: request.selector });
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
    for (const instance of matched) countEnqueue(parent, instance);
  }
}

/** The coordinator with N collection watches over K app values, and (with `naive`) the naive router holding the same watches. */
async function buildRouters(n, k, naive) {
  const coordinator = new IndexedWatchCoordinator(new FakeWatchManager(), countEnqueue, silentLogger());
  const reference = naive ? new NaiveRouter() : undefined;
  const random = seededRandom(n * 31 + k);
  for (let i = 0; i < INSTANCES; i++) {
    const namespace = namespaceOf(i);
    const instance = { namespace, name: `inst-${i}` };
    const watcher = coordinator.forInstance(parent, instance);
    const requests = [{ nodeId: 'config', gvr: configmaps, namespace, name: `cm-${i}` }];
    if (i < n) {
      const scope = random() < 0.7 ? namespace : '';
      requests.push({ nodeId: 'peers', gvr: configmaps, namespace: scope, selector: parseSelector(selectorFor(i, k)) });
    }
    for (const request of requests) {
      await watcher.watch(request);
      reference?.add(instance, request);
    }
    watcher.done(true);
  }
  const counts = coordinator.watchRequestCount();
  if (counts.scalar !== INSTANCES || counts.collection !== n) {
    throw new Error(`expected ${INSTANCES} scalar and ${n} collection watches, got ${JSON.stringify(counts)}`);
  }
  return { coordinator, naive: reference };
}

/** Enqueues `router` makes for `events`. */
function enqueuesFor(router, events) {
  enqueued = 0;
  for (const event of events) router.routeEvent(event);
  return enqueued;
}

function buildEvents(k, appOffset = 0) {
  const random = seededRandom(4242 + k);
  const pick = (values) => values[Math.floor(random() * values.length)];
  const app = () => `a${Math.floor(random() * k) + appOffset}`;
  const events = [];
  for (let e = 0; e < EVENTS; e++) {
    const target = Math.floor(random() * INSTANCES);
    const watched = random() < 0.5;
    const namespace = watched ? namespaceOf(target) : namespaceOf(Math.floor(random() * NAMESPACES));
    const name = watched ? `cm-${target}` : `unwatched-${target}`;
    const labels = { app: app(), tier: pick(['web', 'api', 'db']), env: pick(['prod', 'dev']) };
    if (random() < 0.02) labels.canary = 'true';
    events.push(
      random() < 0.3
        ? { type: 'update', gvr: configmaps, namespace, name, labels, oldLabels: { ...labels, app: app() } }
        : { type: 'add', gvr: configmaps, namespace, name, labels },
    );
  }
  return events;
}

/** CPU ms for one pass of `c.count` events (cycling through the pool); sets c.enqueuesPerEvent. */
function timePass(c) {
  const { router, events, count } = c;
  enqueued = 0;
  const started = process.cpuUsage();
  for (let i = 0; i < count; i++) router.routeEvent(events[i % EVENTS]);
  const ms = cpuMsSince(started);
  c.enqueuesPerEvent = enqueued / count;
  return ms;
}

const workloads = [
  { label: 'K = N/10', measure: 'routeEvent, K = N/10' },
  { label: 'K = 1,000', measure: 'routeEvent, K = 1,000' },
  { label: 'unmatched app', measure: 'routeEvent, unmatched app (K = 1,000 watches)' },
  { label: 'naive', measure: 'naive full scan (seed algorithm), K = 1,000' },
];
const [scaled, fixed, unmatched, naive] = workloads;

const fixedEvents = buildEvents(FIXED_K);
const unmatchedEvents = buildEvents(FIXED_K, UNMATCHED_APP_OFFSET);
const cases = [];
for (const n of SIZES) {
  const k = n / 10;
  progress('routing', `building ${INSTANCES} instances, ${n} collection watches, K = ${k}`);
  const small = await buildRouters(n, k, false);
  cases.push({ n, workload: scaled, router: small.coordinator, events: buildEvents(k), count: 64, rates: [] });
  progress('routing', `building ${INSTANCES} instances, ${n} collection watches, K = ${FIXED_K}, indexed and naive`);
  const routers = await buildRouters(n, FIXED_K, true);
  const sample = fixedEvents.slice(0, AGREEMENT_EVENTS);
  const indexedEnqueues = enqueuesFor(routers.coordinator, sample);
  const naiveEnqueues = enqueuesFor(routers.naive, sample);
  if (indexedEnqueues !== naiveEnqueues) {
    throw new Error(
      `indexed and naive routing disagree at N = ${n}: ${indexedEnqueues} vs ${naiveEnqueues} enqueues for ${AGREEMENT_EVENTS} events`,
    );
  }
  cases.push({ n, workload: fixed, router: routers.coordinator, events: fixedEvents, count: 64, rates: [] });
  cases.push({ n, workload: unmatched, router: routers.coordinator, events: unmatchedEvents, count: 64, rates: [] });
  cases.push({ n, workload: naive, router: routers.naive, events: fixedEvents, count: 64, rates: [] });
}
progress('routing', 'calibrating and warming up');
for (const c of cases) {
  while (timePass(c) < MIN_PASS_MS) c.count *= 2;
  for (let i = 0; i < WARMUP_PASSES; i++) timePass(c);
}
for (let round = 0; round < ROUNDS; round++) {
  progress('routing', `round ${round + 1}/${ROUNDS}`);
  for (const c of cases) c.rates.push((c.count / timePass(c)) * 1000);
}

const rows = [];
for (const w of workloads) {
  for (const c of cases.filter((x) => x.workload === w)) {
    rows.push({
      measure: w.measure,
      size: `${c.n.toLocaleString('en-US')} coll. + 10k scalar`,
      work: c.n,
      value: median(c.rates),
      unit: 'events/s',
      cost: 'inverse',
    });
  }
}
const enqueueSummary = workloads
  .map(
    (w) =>
      `${w.label}: ${cases
        .filter((c) => c.workload === w)
        .map((c) => c.enqueuesPerEvent.toFixed(2))
        .join(' / ')}`,
  )
  .join('; ');
const rateOf = (n, w) => median(cases.find((c) => c.n === n && c.workload === w).rates);
const speedup = SIZES.map((n) => `${(rateOf(n, fixed) / rateOf(n, naive)).toFixed(1)}x`).join(' / ');
emitResult(flags, {
  name: 'routing',
  title: 'IndexedWatchCoordinator.routeEvent throughput',
  rows,
  notes: [
    `events per CPU-second, median of ${ROUNDS} interleaved rounds after calibration (>= ${MIN_PASS_MS} ms passes) and ${WARMUP_PASSES} warm-up pass(es); ${INSTANCES.toLocaleString('en-US')} instances, fake watchManager, counting enqueue`,
    'K = number of app label values: K = N/10 keeps matches per event about constant (cost of the watches routing skips); K = 1,000 lets matches grow with N; unmatched app: K = 1,000 watches, events no selector names (the index alone)',
    `naive = the seed system's full scan of the collection watches on the K = 1,000 watches and events (same enqueues checked on ${AGREEMENT_EVENTS.toLocaleString('en-US')} events); index / naive at N = ${SIZES.map((n) => n.toLocaleString('en-US')).join(' / ')}: ${speedup}`,
    `enqueues per event at N = ${SIZES.map((n) => n.toLocaleString('en-US')).join(' / ')}: ${enqueueSummary}`,
  ],
  details: cases.map((c) => ({
    n: c.n,
    workload: c.workload.label,
    eventsPerPass: c.count,
    rates: c.rates,
    enqueuesPerEvent: c.enqueuesPerEvent,
  })),
});
