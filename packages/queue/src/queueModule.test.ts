import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import {
  coreModule,
  DynamicController,
  silentLogger,
  TOKENS,
  type ObjectIdentifiers,
  type RateLimitingQueue,
  type WorkQueueFactory,
  type WorkQueueOptions,
} from '@protean/core';
import { wasChecked } from '@protean/core/internal';
import { FakeClock, FakeInformerSource, FakeWatchCoordinator, FakeWatchManager, QueueMetricsRecorder } from '@protean/core/testing';
import { Container } from 'inversify';
import { queueModule } from './queueModule.js';
import { RateLimitingWorkQueue } from './RateLimitingWorkQueue.js';

interface Req {
  readonly namespace: string;
  readonly name: string;
}
const reqOptions: WorkQueueOptions<Req> = { key: (r) => `${r.namespace}/${r.name}`, name: 'webapps' };

function container(clock?: FakeClock): Container {
  const c = new Container();
  c.load(coreModule({}, silentLogger()), queueModule());
  if (clock !== undefined) c.rebind(TOKENS.clock).toConstantValue(clock);
  return c;
}

describe('queueModule', () => {
  it('binds a work queue factory that builds rate-limiting queues', async () => {
    const factory = container().get(TOKENS.workQueueFactory);
    const q = factory(reqOptions);
    expect(q).toBeInstanceOf(RateLimitingWorkQueue);
    q.add({ namespace: 'ns', name: 'a' });
    q.add({ namespace: 'ns', name: 'a' });
    expect(q.len()).toBe(1);
    expect(await q.get()).toEqual({ item: { namespace: 'ns', name: 'a' }, shutdown: false });
    q.shutdown();
  });

  it('uses the container clock for delays and the default 5 ms first retry', () => {
    const clock = new FakeClock();
    const q = container(clock).get(TOKENS.workQueueFactory)(reqOptions);
    q.addRateLimited({ namespace: 'ns', name: 'a' });
    clock.advance(4);
    expect(q.len()).toBe(0);
    clock.advance(1);
    expect(q.len()).toBe(1);
    q.shutdown();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('builds the limiter from options.limits when given', () => {
    const clock = new FakeClock();
    const q = container(clock).get(TOKENS.workQueueFactory)({
      ...reqOptions,
      limits: { minRetryDelayMs: 200, maxRetryDelayMs: 1_000, qps: 10, burst: 100 },
    });
    q.addRateLimited({ namespace: 'ns', name: 'a' });
    clock.advance(199);
    expect(q.len()).toBe(0);
    clock.advance(1);
    expect(q.len()).toBe(1);
    expect(q.numRequeues({ namespace: 'ns', name: 'a' })).toBe(1);
    q.shutdown();
  });

  it('prefers options.rateLimiter over options.limits', () => {
    const clock = new FakeClock();
    const q = container(clock).get(TOKENS.workQueueFactory)({
      ...reqOptions,
      limits: { minRetryDelayMs: 200, maxRetryDelayMs: 1_000, qps: 10, burst: 100 },
      rateLimiter: { when: () => 0, forget: () => {}, numRequeues: () => 42 },
    });
    q.addRateLimited({ namespace: 'ns', name: 'a' });
    expect(q.len()).toBe(1);
    expect(q.numRequeues({ namespace: 'ns', name: 'a' })).toBe(42);
  });

  it('reports to the container metrics provider under the queue name', () => {
    const provider = new QueueMetricsRecorder();
    const c = container();
    c.rebind(TOKENS.queueMetricsProvider).toConstantValue(provider);
    c.get(TOKENS.workQueueFactory)(reqOptions);
    const names = provider.queueNames();
    expect(names).toEqual(new Array(7).fill('webapps'));
  });

  it('lets a plugin swap in its own queue by rebinding the factory token', () => {
    class AuditedQueue<T> extends RateLimitingWorkQueue<T> {
      readonly added: T[] = [];
      override add(item: T): void {
        this.added.push(item);
        super.add(item);
      }
    }
    const custom: WorkQueueFactory = <T>(options: WorkQueueOptions<T>): RateLimitingQueue<T> =>
      new AuditedQueue<T>({ key: options.key, name: options.name });
    const c = container();
    c.rebind(TOKENS.workQueueFactory).toConstantValue(custom);
    const q = c.get(TOKENS.workQueueFactory)(reqOptions);
    expect(q).toBeInstanceOf(AuditedQueue);
    q.add({ namespace: 'ns', name: 'a' });
    expect((q as AuditedQueue<Req>).added).toEqual([{ namespace: 'ns', name: 'a' }]);
  });

  it("builds the DynamicController's queue from the limits resolveConfig checked, which it takes as they are", () => {
    const clock = new FakeClock();
    const c = new Container();
    c.load(coreModule({ minRetryDelayMs: 300, maxRetryDelayMs: 300, rateLimit: 1_000, burstLimit: 1_000 }, silentLogger()), queueModule());
    c.rebind(TOKENS.clock).toConstantValue(clock);
    const moduleFactory = c.get(TOKENS.workQueueFactory);
    const given: WorkQueueOptions<ObjectIdentifiers>[] = [];
    const queues: RateLimitingQueue<ObjectIdentifiers>[] = [];
    const recording = (<T>(options: WorkQueueOptions<T>): RateLimitingQueue<T> => {
      given.push(options as unknown as WorkQueueOptions<ObjectIdentifiers>);
      const queue = moduleFactory(options);
      queues.push(queue as unknown as RateLimitingQueue<ObjectIdentifiers>);
      return queue;
    }) as WorkQueueFactory;
    c.rebind(TOKENS.workQueueFactory).toConstantValue(recording);
    c.bind(TOKENS.informerSource).toConstantValue(new FakeInformerSource());
    c.bind(TOKENS.watchManagerFactory).toConstantValue((deps) => new FakeWatchManager({ onEvent: deps.onEvent }));
    c.bind(TOKENS.watchCoordinatorFactory).toConstantValue((deps) => new FakeWatchCoordinator(deps));
    c.get(DynamicController);
    // Checked once, by resolveConfig (coreModule): the limits arrive marked, so the limiter does not check them again.
    expect(given).toHaveLength(1);
    expect(wasChecked(given[0]?.limits)).toBe(true);
    const queue = queues[0] as RateLimitingQueue<ObjectIdentifiers>;
    const item: ObjectIdentifiers = { gvr: { group: 'g', version: 'v1', resource: 'things' }, namespace: 'ns', name: 'a' };
    queue.addRateLimited(item);
    clock.advance(299);
    expect(queue.len()).toBe(0);
    clock.advance(1);
    expect(queue.len()).toBe(1);
    queue.shutdown();
  });

  it('rejects a bad unfinished-work period when the module is built', () => {
    expect(() => queueModule({ unfinishedWorkUpdatePeriodMs: Number.NaN })).toThrow(
      'queueModule: invalid unfinishedWorkUpdatePeriodMs=NaN',
    );
  });

  it('rejects an unfinished-work period of 2^31 ms (Node would fire its timer every 1 ms), naming it and the limit', () => {
    expect(() => queueModule({ unfinishedWorkUpdatePeriodMs: 2 ** 31 })).toThrow(
      "queueModule: invalid unfinishedWorkUpdatePeriodMs=2147483648: must be a number from 0 to 2147483647 (the longest delay Node's timers honour)",
    );
    expect(() => queueModule({ unfinishedWorkUpdatePeriodMs: 2 ** 31 - 1 })).not.toThrow();
  });
});
