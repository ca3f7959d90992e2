import { afterEach, describe, expect, it } from '@jest/globals';
import { KubeClient } from '@protean/client';
import { type KubeHttpRequest, type KubeHttpResponse, type KubeTransport } from '@protean/client/internal';
import { DynamicController, silentLogger, type GroupVersionResource, type Handler } from '@protean/core';
import {
  FakeClock,
  FakeInformerSource,
  FakeWatchCoordinator,
  FakeWatchManager,
  FakeWorkQueue,
  fakeObject,
  flushMicrotasks,
  FreezableClock,
  type FakeInformer,
} from '@protean/core/testing';
import { FakeLeaseClient, LeaderElector, type Lease, type LeaseClient } from '@protean/leader-election';

// A leader frozen (SIGSTOP) past its lease while its passes wait for a read: on waking no write of it reaches the
// server. Fake clock, client-go timings; two replicas, each a DynamicController with a LeaderElector.
const LEASE_MS = 15_000;
const webapps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const NAMES = ['a', 'b', 'c', 'd'];

/** The server side of the handlers' writes: records who wrote what when (fake-clock ms). */
class Server {
  readonly writes: { replica: string; name: string; atMs: number }[] = [];
  constructor(private readonly world: FakeClock) {}
  transportFor(replica: string): KubeTransport {
    return {
      send: (request: KubeHttpRequest): Promise<KubeHttpResponse> => {
        const name = request.path.split('?')[0]!.split('/').at(-1) ?? '';
        this.writes.push({ replica, name, atMs: this.world.now() });
        return Promise.resolve({ status: 200, headers: {}, body: JSON.stringify({ metadata: { name, namespace: 'ns' } }) });
      },
    };
  }
}

/** A lease client that, while the process is frozen, holds requests and answers until it thaws. */
class FreezableLeaseClient implements LeaseClient {
  private thawed: Promise<void> | undefined;
  private release: (() => void) | undefined;
  /** Called once, right after the server carried out the next update (a renewal), before its answer arrives. */
  afterNextUpdate: (() => void) | undefined;
  constructor(private readonly inner: LeaseClient) {}
  freeze(): void {
    this.thawed = new Promise((resolve) => (this.release = resolve));
  }
  thaw(): void {
    this.thawed = undefined;
    this.release?.();
  }
  get(ns: string, name: string, signal: AbortSignal): Promise<Lease | undefined> {
    return this.call(() => this.inner.get(ns, name, signal));
  }
  create(lease: Lease, signal: AbortSignal): Promise<Lease> {
    return this.call(() => this.inner.create(lease, signal));
  }
  update(lease: Lease, signal: AbortSignal): Promise<Lease> {
    return this.call(async () => {
      const written = await this.inner.update(lease, signal);
      const hook = this.afterNextUpdate;
      this.afterNextUpdate = undefined;
      hook?.();
      return written;
    });
  }
  private async call<T>(fn: () => Promise<T>): Promise<T> {
    while (this.thawed !== undefined) await this.thawed;
    const result = await fn();
    while (this.thawed !== undefined) await this.thawed;
    return result;
  }
}

interface Replica {
  readonly id: string;
  readonly clock: FreezableClock;
  readonly leases: FreezableLeaseClient;
  readonly elector: LeaderElector;
  readonly controller: DynamicController;
  readonly stop: AbortController;
  readonly running: Promise<void>;
  /** Read answers that reached the process while it was frozen: they run first on waking. */
  readonly io: (() => void)[];
}

const world = new FakeClock(0);
const store = new FakeLeaseClient();
const server = new Server(world);
const replicas: Replica[] = [];
/** Writes refused before they were sent, by replica and error name. */
const refused: string[] = [];
/** One lease per test, so a test never waits for the last one's holder. */
let leaseName = 'webapp-1';

afterEach(async () => {
  leaseName = `webapp-${Number(leaseName.split('-')[1]) + 1}`;
  refused.length = 0;
  server.writes.length = 0;
  for (const r of replicas.splice(0)) {
    r.clock.thaw();
    r.leases.thaw();
    r.stop.abort();
  }
  await advance(20_000);
});

async function advance(ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 10) {
    await world.advanceAsync(10);
    await flushMicrotasks(40);
  }
}

async function replica(id: string, readMs = 1_000): Promise<Replica> {
  const clock = new FreezableClock(world);
  const leases = new FreezableLeaseClient(store);
  const elector = new LeaderElector({
    client: leases,
    namespace: 'ctl',
    leaseName,
    identity: id,
    clock,
    wallClock: () => Date.UTC(2026, 11, 1) + world.now(),
    random: () => 0,
    logger: silentLogger(),
  });
  let watchManager: FakeWatchManager | undefined;
  const controller = DynamicController.create({
    config: { workers: 4, resyncPeriodMs: 0, queueMaxRetries: 3, minRetryDelayMs: 100, maxRetryDelayMs: 1_000 },
    logger: silentLogger(),
    clock,
    leadership: elector,
    informerSource: new FakeInformerSource(),
    workQueueFactory: FakeWorkQueue.factory(clock, []),
    watchManagerFactory: (deps) => (watchManager = new FakeWatchManager({ onEvent: deps.onEvent })),
    watchCoordinatorFactory: (deps) => new FakeWatchCoordinator(deps),
  });
  const stop = new AbortController();
  const running = controller.start(stop.signal);
  running.catch(() => undefined);
  const r: Replica = { id, clock, leases, elector, controller, stop, running, io: [] };
  const client = new KubeClient({ transport: server.transportFor(id), fieldManager: id });
  // Each pass reads (answered readMs later by the server, even while this process is frozen) and then writes.
  const handler: Handler = async (req, ctx) => {
    await new Promise<void>((resolve) => world.setTimeout(() => (r.clock.frozen ? r.io.push(resolve) : resolve()), readMs));
    if (ctx.signal.aborted) return;
    try {
      await client.patch(configmaps, { namespace: req.namespace, name: req.name }, { data: { by: id } }, { signal: ctx.signal });
    } catch (err) {
      refused.push(`${id} ${req.name}: ${(err as Error).name}`);
      throw err;
    }
  };
  await controller.register(webapps, handler);
  const informer = watchManager!.getInformer(webapps) as FakeInformer;
  for (const name of NAMES) {
    informer.add(fakeObject({ namespace: 'ns', name, generation: 1 }));
    watchManager!.emit({ type: 'add', gvr: webapps, namespace: 'ns', name, labels: {}, generation: 1 });
  }
  replicas.push(r);
  return r;
}

function freeze(r: Replica): void {
  r.clock.freeze();
  r.leases.freeze();
}

function thaw(r: Replica): void {
  for (const answer of r.io.splice(0)) answer();
  r.leases.thaw();
  r.clock.thaw();
}

describe('a leader frozen past its lease between a read and a write (fake clock)', () => {
  it('sends none of its passes’ writes after it wakes: they fail with LeaseExpiredError before reaching the server', async () => {
    const a = await replica('replica-a');
    await advance(100);
    const b = await replica('replica-b');
    await advance(400);
    // a leads and its passes wait for their reads (answered at 1 s): freeze it now.
    expect(a.elector.isLeader()).toBe(true);
    expect(server.writes).toEqual([]);
    freeze(a);
    const frozenAt = world.now();
    await advance(LEASE_MS + 5_000);
    expect(b.elector.isLeader()).toBe(true);
    thaw(a);
    // Awake, before any of its timers ran: it does not claim to lead next to b.
    expect(a.elector.isLeader()).toBe(false);
    await advance(3_000);
    const late = server.writes.filter((w) => w.replica === a.id && w.atMs >= frozenAt);
    expect(late).toEqual([]);
    expect(refused.sort()).toEqual(NAMES.map((n) => `${a.id} ${n}: LeaseExpiredError`));
    expect(
      server.writes
        .filter((w) => w.replica === b.id)
        .map((w) => w.name)
        .sort(),
    ).toEqual(NAMES);
  });

  it('sends none after a freeze that caught a renewal in flight, whose answer arrives after the lease ended', async () => {
    const a = await replica('replica-a', 3_000);
    await advance(100);
    const b = await replica('replica-b');
    expect(a.elector.isLeader()).toBe(true);
    // The renewal due at 2 s reaches the server; the process freezes before its answer, with its passes still reading.
    a.leases.afterNextUpdate = () => freeze(a);
    await advance(2_500);
    expect(a.clock.frozen).toBe(true);
    const frozenAt = world.now();
    await advance(LEASE_MS + 5_000);
    expect(b.elector.isLeader()).toBe(true);
    thaw(a);
    await advance(5_000);
    expect(server.writes.filter((w) => w.replica === a.id && w.atMs >= frozenAt)).toEqual([]);
    expect(a.elector.isLeader()).toBe(false);
    expect(
      server.writes
        .filter((w) => w.replica === b.id)
        .map((w) => w.name)
        .sort(),
    ).toEqual(NAMES);
  });
});
