import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { coreModule, silentLogger, TOKENS, type RateLimitingQueue, type WorkQueueFactory, type WorkQueueOptions } from '@protean/core';
import { FakeClock, QueueMetricsRecorder } from '@protean/core/testing';
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

  it('rejects a bad unfinished-work period when the module is built', () => {
    expect(() => queueModule({ unfinishedWorkUpdatePeriodMs: Number.NaN })).toThrow(
      'queueModule: invalid unfinishedWorkUpdatePeriodMs=NaN',
    );
  });
});
