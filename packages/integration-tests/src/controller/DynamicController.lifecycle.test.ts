import { afterEach, describe, expect, it } from '@jest/globals';
import { ControllerStateError, ShutdownTimeoutError, type GroupVersionResource, type ReconcileContext } from '@protean/core';
import { createTestController, Deferred, FakeClock, HandlerRecorder, type TestController } from '@protean/testing';

const parent: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };

describe('DynamicController lifecycle', () => {
  let t: TestController;
  const gates: Deferred[] = [];

  afterEach(async () => {
    for (const g of gates.splice(0)) g.resolve();
    await t.dispose();
  });

  function gate(): Deferred {
    const g = new Deferred();
    gates.push(g);
    return g;
  }

  it('rejects a second start while running', async () => {
    t = createTestController();
    await t.start();
    await expect(t.controller.start(new AbortController().signal)).rejects.toThrow(ControllerStateError);
    await expect(t.controller.start(new AbortController().signal)).rejects.toThrow(/already running/);
    expect(t.controller.isStarted()).toBe(true);
  });

  it('rejects a start after shutdown: a controller runs once', async () => {
    t = createTestController();
    await t.start();
    await t.stop();
    expect(t.controller.isStarted()).toBe(false);
    await expect(t.controller.start(new AbortController().signal)).rejects.toThrow(/already stopped/);
  });

  it('rejects register before start, naming the parent GVR', async () => {
    t = createTestController();
    const h = new HandlerRecorder();
    const err = await t.register(parent, h.handler).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ControllerStateError);
    expect((err as Error).message).toContain('demo.protean.dev/v1/webapps');
    expect((err as ControllerStateError).state).toBe('idle');
    expect(t.controller.registeredGVRs()).toEqual([]);
    expect(t.source.informers()).toEqual([]);
  });

  it('rejects register once shut down', async () => {
    t = createTestController();
    await t.start();
    await t.stop();
    await expect(t.register(parent, new HandlerRecorder().handler)).rejects.toThrow(ControllerStateError);
  });

  it('resolves start when the signal is already aborted, after a clean shutdown', async () => {
    t = createTestController();
    const abort = new AbortController();
    abort.abort();
    await expect(t.controller.start(abort.signal)).resolves.toBeUndefined();
    expect(t.controller.isStarted()).toBe(false);
  });

  it('on shutdown, stops the informers, aborts ctx.signal and resolves once the in-flight handler returns', async () => {
    const clock = new FakeClock();
    t = createTestController({ clock, config: { queueShutdownTimeoutMs: 1_000 } });
    t.source.add(parent, { name: 'a', namespace: 'ns' });
    const entered = gate();
    const release = gate();
    let ctx: ReconcileContext | undefined;
    let finished = false;
    await t.start();
    await t.register(parent, async (_req, c) => {
      ctx = c;
      entered.resolve();
      await release.promise;
      finished = true;
    });
    await entered.promise;
    expect(ctx!.signal.aborted).toBe(false);

    let settled = false;
    const stopping = t.stop().finally(() => (settled = true));
    await t.waitFor(() => ctx!.signal.aborted);
    expect(t.source.informer(parent)!.isStopped()).toBe(true);
    expect(t.controller.isStarted()).toBe(false);
    expect(settled).toBe(false);

    release.resolve();
    await expect(stopping).resolves.toBeUndefined();
    expect(finished).toBe(true);
  });

  it('rejects start with a ShutdownTimeoutError naming the timeout and the item when a handler outlives queueShutdownTimeoutMs', async () => {
    const clock = new FakeClock();
    t = createTestController({ clock, config: { queueShutdownTimeoutMs: 1_000 } });
    t.source.add(parent, { name: 'a', namespace: 'ns' });
    const entered = gate();
    const never = gate();
    let ctx: ReconcileContext | undefined;
    await t.start();
    await t.register(parent, async (_req, c) => {
      ctx = c;
      entered.resolve();
      await never.promise; // ignores its signal
    });
    await entered.promise;

    let outcome: unknown = 'pending';
    const stopping = t.stop().then(
      () => (outcome = 'resolved'),
      (err: unknown) => (outcome = err),
    );
    await t.waitFor(() => ctx!.signal.aborted);
    await clock.advanceAsync(999);
    expect(outcome).toBe('pending');
    await clock.advanceAsync(1);
    await stopping;
    expect(outcome).toBeInstanceOf(ShutdownTimeoutError);
    const err = outcome as ShutdownTimeoutError;
    expect(err.timeoutMs).toBe(1_000);
    expect(err.inFlight).toEqual(['demo.protean.dev/v1/webapps|ns/a']);
    expect(err.message).toContain('queueShutdownTimeoutMs=1000ms');
    expect(err.message).toContain('demo.protean.dev/v1/webapps|ns/a');
  });

  it('waits for in-flight handlers without limit when queueShutdownTimeoutMs is 0', async () => {
    const clock = new FakeClock();
    t = createTestController({ clock, config: { queueShutdownTimeoutMs: 0 } });
    t.source.add(parent, { name: 'a', namespace: 'ns' });
    const entered = gate();
    const release = gate();
    await t.start();
    await t.register(parent, async () => {
      entered.resolve();
      await release.promise;
    });
    await entered.promise;
    let settled = false;
    const stopping = t.stop().finally(() => (settled = true));
    await clock.advanceAsync(24 * 3600 * 1000);
    expect(settled).toBe(false);
    expect(clock.pendingTimers()).toBe(0);
    release.resolve();
    await expect(stopping).resolves.toBeUndefined();
  });

  it('does not run handlers for items still queued when shutdown begins', async () => {
    t = createTestController();
    t.source.add(parent, { name: 'a', namespace: 'ns' });
    t.source.add(parent, { name: 'b', namespace: 'ns' });
    const entered = gate();
    const release = gate();
    const h = new HandlerRecorder(async () => {
      entered.resolve();
      await release.promise;
    });
    await t.start();
    await t.register(parent, h.handler);
    await entered.promise;
    expect(t.controller.queueLength()).toBe(1);
    const stopping = t.stop();
    await t.waitFor(() => h.calls[0]!.ctx.signal.aborted);
    release.resolve();
    await stopping;
    expect(h.keys()).toEqual(['ns/a']);
  });
});
