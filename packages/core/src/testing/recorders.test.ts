import { describe, expect, it } from '@jest/globals';
import type { ReconcileContext } from '../index.js';
import { ObjectNotCachedError, silentLogger } from '../index.js';
import { Deferred } from './Deferred.js';
import { EnqueueRecorder } from './EnqueueRecorder.js';
import { FakeRateLimiter } from './FakeRateLimiter.js';
import { HandlerRecorder } from './HandlerRecorder.js';
import { LogRecorder } from './LogRecorder.js';
import { NoopInstanceWatcher } from './NoopInstanceWatcher.js';
import { ObserverRecorder } from './ObserverRecorder.js';
import { QueueMetricsRecorder } from './QueueMetricsRecorder.js';

const web = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const db = { group: 'demo.protean.dev', version: 'v1', resource: 'databases' };

describe('EnqueueRecorder', () => {
  it('records enqueue calls in order, per parent GVR, until cleared', () => {
    const rec = new EnqueueRecorder();
    const { enqueue } = rec; // usable detached
    enqueue(web, { namespace: 'ns', name: 'a' });
    enqueue(db, { namespace: 'ns', name: 'x' });
    enqueue(web, { namespace: 'ns', name: 'a' });
    expect(rec.instances(web)).toEqual([
      { namespace: 'ns', name: 'a' },
      { namespace: 'ns', name: 'a' },
    ]);
    expect(rec.calls).toHaveLength(3);
    rec.clear();
    expect(rec.calls).toEqual([]);
  });

  it('prints the calls as GVR and instance keys, and takes them sorted step by step', () => {
    const rec = new EnqueueRecorder();
    rec.enqueue(web, { namespace: 'ns', name: 'b' });
    rec.enqueue(db, { namespace: '', name: 'x' });
    rec.enqueue(web, { namespace: 'ns', name: 'a' });
    expect(rec.keys()).toEqual(['demo.protean.dev/v1/webapps ns/b', 'demo.protean.dev/v1/databases x', 'demo.protean.dev/v1/webapps ns/a']);
    expect(rec.take()).toEqual(['demo.protean.dev/v1/databases x', 'demo.protean.dev/v1/webapps ns/a', 'demo.protean.dev/v1/webapps ns/b']);
    expect(rec.take()).toEqual([]);
    rec.enqueue(web, { namespace: 'ns', name: 'c' });
    expect(rec.take()).toEqual(['demo.protean.dev/v1/webapps ns/c']);
  });
});

describe('HandlerRecorder', () => {
  it('records each call before running the current impl', async () => {
    const ctx: ReconcileContext = {
      signal: new AbortController().signal,
      logger: silentLogger(),
      gvr: web,
      watcher: new NoopInstanceWatcher(),
      get: (gvr) => Promise.reject(new ObjectNotCachedError(gvr)),
      list: (gvr) => Promise.reject(new ObjectNotCachedError(gvr)),
    };
    const rec = new HandlerRecorder();
    await rec.handler({ namespace: 'ns', name: 'a' }, ctx);
    rec.impl = () => Promise.reject(new Error('now failing'));
    await expect(rec.handler({ namespace: 'ns', name: 'b' }, ctx)).rejects.toThrow('now failing');
    expect(rec.keys()).toEqual(['ns/a', 'ns/b']);
    expect(rec.count({ namespace: 'ns', name: 'b' })).toBe(1);
    expect(rec.calls[0]!.ctx).toBe(ctx);
  });
});

describe('LogRecorder', () => {
  it('keeps log records with their fields, at or above its level', () => {
    const rec = new LogRecorder('info');
    rec.logger.child({ component: 'x' }).error({ item: 'k' }, 'dropping k');
    rec.logger.debug('too chatty');
    expect(rec.errors()).toHaveLength(1);
    expect(rec.find('dropping')[0]).toMatchObject({ level: 50, component: 'x', item: 'k' });
    expect(rec.records).toHaveLength(1);
  });

  it('tells the bindings of the logger that wrote a record apart from its fields', () => {
    const rec = new LogRecorder();
    rec.logger.child({ component: 'x' }).child({ gvr: 'v1/pods' }).info({ item: 'k' }, 'child');
    rec.logger.warn('root');
    const [child, root] = rec.records;
    expect(rec.bindingsOf(child!)).toEqual({ component: 'x', gvr: 'v1/pods' });
    expect(child).toMatchObject({ component: 'x', item: 'k', msg: 'child' });
    expect(rec.bindingsOf(root!)).toEqual({});
    expect(rec.bindingsOf({ level: 30 })).toEqual({});
  });
});

describe('ObserverRecorder', () => {
  it('records reconcile outcomes per GVR, parent events and handler errors', () => {
    const rec = new ObserverRecorder();
    rec.onReconcile(web, 3, 'success');
    rec.onReconcile(db, 1, 'error');
    rec.onParentEvent(web, 'add');
    rec.onHandlerError(db, 'e', true);
    expect(rec.outcomes()).toEqual(['success', 'error']);
    expect(rec.outcomes(db)).toEqual(['error']);
    expect(rec.parentEvents).toEqual([{ gvr: web, type: 'add' }]);
    expect(rec.handlerErrors).toEqual([{ gvr: db, err: 'e', thrownSync: true }]);
  });
});

describe('NoopInstanceWatcher', () => {
  it('resolves every watch and accepts done', async () => {
    const w = new NoopInstanceWatcher();
    await expect(w.watch({ nodeId: 'n', gvr: web, namespace: 'ns', name: 'a' })).resolves.toBeUndefined();
    expect(() => w.done(true)).not.toThrow();
  });
});

describe('Deferred', () => {
  it('settles its promise from outside', async () => {
    const d = new Deferred<number>();
    expect(d.settled()).toBe(false);
    d.resolve(4);
    expect(d.settled()).toBe(true);
    await expect(d.promise).resolves.toBe(4);
  });
});

describe('QueueMetricsRecorder', () => {
  it('records each metric created under its queue name, and every update', () => {
    const rec = new QueueMetricsRecorder();
    const depth = rec.newDepthMetric('q');
    rec.newAddsMetric('q').inc();
    rec.newLatencyMetric('q').observe(0.5);
    rec.newWorkDurationMetric('q').observe(1.5);
    rec.newUnfinishedWorkSecondsMetric('q').set(2);
    rec.newLongestRunningProcessorSecondsMetric('other').set(3);
    rec.newRetriesMetric('other').inc();
    depth.inc();
    depth.inc();
    depth.dec();
    expect(rec.created).toEqual(['depth:q', 'adds:q', 'latency:q', 'workDuration:q', 'unfinished:q', 'longest:other', 'retries:other']);
    expect(rec.queueNames()).toEqual(['q', 'q', 'q', 'q', 'q', 'other', 'other']);
    expect([rec.depth, rec.adds, rec.retries]).toEqual([1, 1, 1]);
    expect([rec.latencySeconds, rec.workSeconds, rec.unfinishedSeconds, rec.longestSeconds]).toEqual([[0.5], [1.5], [2], [3]]);
  });
});

describe('FakeRateLimiter', () => {
  it('answers the delay and requeues it is set to, recording when and forget', () => {
    const limiter = new FakeRateLimiter<string>({ delayMs: 30, requeues: 2 });
    expect([limiter.when('a'), limiter.numRequeues('a')]).toEqual([30, 2]);
    limiter.delayMs = 5;
    limiter.requeues = 0;
    expect([limiter.when('b'), limiter.numRequeues('b')]).toEqual([5, 0]);
    limiter.forget('a');
    expect(limiter.whenCalls).toEqual(['a', 'b']);
    expect(limiter.forgotten).toEqual(['a']);
    expect([new FakeRateLimiter<string>().when('x'), new FakeRateLimiter<string>().numRequeues('x')]).toEqual([0, 0]);
  });
});
