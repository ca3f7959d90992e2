import { afterEach, describe, expect, it } from '@jest/globals';
import { ShutdownTimeoutError, TOKENS, type GroupVersionResource } from '@protean/core';
import { createTestController, testControllerConfig, type TestController } from './createTestController.js';
import { Deferred } from '@protean/core/testing';
import { FakeClock } from '@protean/core/testing';
import { FakeInformerSource } from '@protean/core/testing';
import { HandlerRecorder } from '@protean/core/testing';
import { LogRecorder } from '@protean/core/testing';

const gvr: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };

describe('createTestController', () => {
  let t: TestController | undefined;

  afterEach(async () => {
    await t?.dispose();
  });

  it('composes a controller over a fake source with the test config, ready to unit-test a handler', async () => {
    t = createTestController();
    expect(t.container.get(TOKENS.config)).toMatchObject(testControllerConfig);
    expect(t.container.get(TOKENS.informerSource)).toBe(t.source);
    t.source.add(gvr, { name: 'a', namespace: 'ns' });
    const h = new HandlerRecorder();
    await t.start();
    await t.register(gvr, h.handler);
    await t.waitFor(() => h.count() === 1);
    expect(t.controller.isStarted()).toBe(true);
    await t.stop();
    expect(t.controller.isStarted()).toBe(false);
    await expect(t.stop()).resolves.toBeUndefined(); // repeatable
  });

  it('accepts a given source, clock and config, and rebinds tokens in configure before the controller is built', async () => {
    const source = new FakeInformerSource({ autoSync: false });
    const clock = new FakeClock();
    const logs = new LogRecorder('info');
    t = createTestController({
      source,
      clock,
      config: { workers: 2 },
      configure: (c) => c.rebind(TOKENS.logger).toConstantValue(logs.logger),
    });
    expect(t.source).toBe(source);
    expect(t.container.get(TOKENS.clock)).toBe(clock);
    expect(t.container.get(TOKENS.config).workers).toBe(2);
    await t.start();
    expect(logs.find('dynamic controller started')[0]).toMatchObject({ component: 'dynamic-controller', workers: 2 });
  });

  it('rejects start when the controller is already running', async () => {
    t = createTestController();
    await t.start();
    await expect(t.start()).rejects.toThrow(/already running/);
    await expect(t.stop()).resolves.toBeUndefined(); // the first run is still the one stopped
  });

  it('reports a failed shutdown from stop, and dispose swallows it', async () => {
    const clock = new FakeClock();
    t = createTestController({ clock, config: { queueShutdownTimeoutMs: 10 } });
    t.source.add(gvr, { name: 'a', namespace: 'ns' });
    const entered = new Deferred();
    const never = new Deferred();
    await t.start();
    await t.register(gvr, async () => {
      entered.resolve();
      await never.promise;
    });
    await entered.promise;
    const stopping = t.stop();
    stopping.catch(() => {});
    await t.waitFor(() => clock.pendingTimers() === 1);
    await clock.advanceAsync(10);
    await expect(stopping).rejects.toThrow(ShutdownTimeoutError);
    await expect(t.dispose()).resolves.toBeUndefined();
    never.resolve();
  });
});
