import { describe, expect, it } from '@jest/globals';
import type { ReconcileContext } from '../index.js';
import { silentLogger } from '../index.js';
import { Deferred } from './Deferred.js';
import { EnqueueRecorder } from './EnqueueRecorder.js';
import { HandlerRecorder } from './HandlerRecorder.js';
import { LogRecorder } from './LogRecorder.js';
import { NoopInstanceWatcher } from './NoopInstanceWatcher.js';
import { ObserverRecorder } from './ObserverRecorder.js';

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
});

describe('HandlerRecorder', () => {
  it('records each call before running the current impl', async () => {
    const ctx: ReconcileContext = { signal: new AbortController().signal, logger: silentLogger(), gvr: web, watcher: new NoopInstanceWatcher() };
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
