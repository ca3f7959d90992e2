import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { requeue, TOKENS, type GroupVersionResource } from '@protean/core';
import { Deferred, FakeStatusError, ObserverRecorder, WaitForTimeoutError } from '@protean/core/testing';
import { createTestController, testWaitForTimeoutMs, type TestController } from './createTestController.js';

const webapps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const THIS_FILE = 'createTestController.failures.test.ts';

/** The message `t.waitFor(condition)` rejects with. */
async function timeoutMessage(wait: Promise<void>): Promise<string> {
  const err = await wait.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WaitForTimeoutError);
  return (err as WaitForTimeoutError).message;
}

describe('createTestController: a failing handler shows in the test output', () => {
  let t: TestController | undefined;

  afterEach(async () => {
    await t?.dispose();
    jest.restoreAllMocks();
  });

  it("puts the last failed pass in waitFor's timeout message: instance, handler error and the frame that threw it", async () => {
    const lines: string[] = [];
    t = createTestController({ waitForTimeoutMs: 300, logFailures: (line) => lines.push(line) });
    t.source.add(webapps, { name: 'shop', namespace: 'prod' });
    const done: string[] = [];
    await t.start();
    await t.register(webapps, () => {
      throw new Error('the database is on fire');
    });

    const message = await timeoutMessage(t.waitFor(() => done.length === 1));

    expect(message.split('\n')[0]).toBe('condition not met within 300ms: done.length === 1');
    expect(message).toContain("300ms is this controller's waitForTimeoutMs; raise it there or with t.waitFor(condition, { timeoutMs })");
    // testControllerConfig: 3 retries, so the fourth failure drops the item.
    expect(message).toContain(
      'the last: demo.protean.dev/v1/webapps prod/shop (failure 4 in a row; dropped after its last retry): Error: the database is on fire',
    );
    expect(message).toMatch(new RegExp(`\\n\\s+at .*${THIS_FILE}:\\d+:\\d+`));
    expect(t.lastFailedPass()).toMatchObject({
      seq: 4,
      parent: 'demo.protean.dev/v1/webapps',
      instance: 'prod/shop',
      summary: 'Error: the database is on fire',
      failures: 4,
      dropped: true,
    });
    expect(t.lastFailedPass()?.frame).toContain(THIS_FILE);
  });

  it('prints every failed pass with console.warn by default, one line and the frame that threw', async () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => {});
    t = createTestController();
    t.source.add(webapps, { name: 'shop', namespace: 'prod' });
    await t.start();
    await t.register(webapps, async () => {
      await Promise.resolve();
      throw new FakeStatusError(409, 'the object has been modified');
    });
    await t.waitFor(() => t?.lastFailedPass()?.dropped === true);

    const printed = warn.mock.calls.map((args) => String(args[0]));
    expect(printed).toHaveLength(4);
    expect(printed[0]).toMatch(
      /^createTestController: a pass failed: demo\.protean\.dev\/v1\/webapps prod\/shop \(failure 1 in a row; retried with backoff\): 409\b.*the object has been modified\n/,
    );
    expect(printed[3]).toContain('(failure 4 in a row; dropped after its last retry)');
    // The frame is where the handler threw, not FakeStatusError's constructor.
    for (const line of printed) expect(line).toMatch(new RegExp(`\\n\\s+at .*${THIS_FILE}:\\d+:\\d+\\)?$`));
  });

  it('prints nothing with logFailures: false, and still reports the last failed pass', async () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => {});
    t = createTestController({ logFailures: false, config: { queueMaxRetries: 0 } });
    t.source.add(webapps, { name: 'shop', namespace: 'prod' });
    await t.start();
    await t.register(webapps, () => Promise.reject(new TypeError('spec.replicas is not a number')));
    await t.waitFor(() => t?.lastFailedPass() !== undefined);
    await t.waitFor(() => t?.lastFailedPass()?.dropped === true);

    expect(warn).not.toHaveBeenCalled();
    const message = await timeoutMessage(t.waitFor(() => false, { timeoutMs: 20 }));
    expect(message).toContain(
      'no pass failed during this wait; the last failed pass (1 so far): demo.protean.dev/v1/webapps prod/shop (failure 1 in a row; dropped after its last retry): TypeError: spec.replicas is not a number',
    );
  });

  it('does not count requeue signals and the NotFound of a deleted instance as failed passes', async () => {
    const lines: string[] = [];
    t = createTestController({ logFailures: (line) => lines.push(line) });
    t.source.add(webapps, { name: 'requeued', namespace: 'prod' });
    t.source.add(webapps, { name: 'gone', namespace: 'prod' });
    const passes: string[] = [];
    await t.start();
    await t.register(webapps, (req) => {
      passes.push(req.name);
      // Deleted before its informer heard of it: its read of the instance is a 404 naming it.
      if (req.name === 'gone') throw new FakeStatusError(404, 'webapps.demo.protean.dev "gone" not found', 'gone');
      // Only its first pass asks for another.
      if (passes.filter((n) => n === 'requeued').length === 1) throw requeue.needed();
      return Promise.resolve();
    });
    await t.waitFor(() => passes.length === 3 && t?.controller.queueLength() === 0);

    expect(lines).toEqual([]);
    expect(t.lastFailedPass()).toBeUndefined();
    const message = await timeoutMessage(t.waitFor(() => false, { timeoutMs: 20 }));
    expect(message).toBe('condition not met within 20ms: false\n  no pass of this controller failed');
  });

  it('tells apart two instances failing at once on two workers', async () => {
    const lines: string[] = [];
    t = createTestController({ config: { workers: 2, queueMaxRetries: 0 }, logFailures: (line) => lines.push(line) });
    t.source.add(webapps, { name: 'a', namespace: 'prod' });
    t.source.add(webapps, { name: 'b', namespace: 'prod' });
    const entered: string[] = [];
    const both = new Deferred();
    await t.start();
    await t.register(webapps, async (req) => {
      entered.push(req.name);
      if (entered.length === 2) both.resolve();
      await both.promise;
      throw new Error(`instance ${req.name} failed`);
    });
    await t.waitFor(() => lines.length === 2);

    expect([...lines].sort()).toEqual([
      expect.stringContaining(
        'demo.protean.dev/v1/webapps prod/a (failure 1 in a row; dropped after its last retry): Error: instance a failed',
      ),
      expect.stringContaining(
        'demo.protean.dev/v1/webapps prod/b (failure 1 in a row; dropped after its last retry): Error: instance b failed',
      ),
    ]);
    expect(t.lastFailedPass()?.inFlight).toHaveLength(2);
  });

  it('keeps calling the observer of options.observer and one bound in configure', async () => {
    const given = new ObserverRecorder();
    const bound = new ObserverRecorder();
    const cases = [
      createTestController({ observer: given, logFailures: false }),
      createTestController({ logFailures: false, configure: (c) => c.rebind(TOKENS.controllerObserver).toConstantValue(bound) }),
    ];
    try {
      for (const c of cases) {
        c.source.add(webapps, { name: 'shop', namespace: 'prod' });
        await c.start();
        await c.register(webapps, () => Promise.reject(new Error('boom')));
        await c.waitFor(() => c.lastFailedPass()?.dropped === true);
      }
    } finally {
      for (const c of cases) await c.dispose();
    }
    for (const observer of [given, bound]) {
      expect(observer.outcomes(webapps)).toEqual(['error', 'error', 'error', 'dropped']);
      expect(observer.handlerErrors.map((e) => (e.err as Error).message)).toEqual(['boom', 'boom', 'boom', 'boom']);
      expect(observer.parentEvents).toHaveLength(1);
    }
  });

  it('does not print the passes a stop cuts off', async () => {
    const lines: string[] = [];
    t = createTestController({ logFailures: (line) => lines.push(line) });
    t.source.add(webapps, { name: 'shop', namespace: 'prod' });
    const entered = new Deferred();
    await t.start();
    await t.register(webapps, async (_req, ctx) => {
      entered.resolve();
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
      throw new Error('aborted by the stop');
    });
    await entered.promise;
    await t.stop();
    await Promise.resolve(); // the failure is completed in a microtask
    expect(lines).toEqual([]);
  });

  it('names the passes still running when the wait gives up, for a handler that never returns', async () => {
    t = createTestController();
    t.source.add(webapps, { name: 'shop', namespace: 'prod' });
    const entered = new Deferred();
    const release = new Deferred();
    await t.start();
    await t.register(webapps, async () => {
      entered.resolve();
      await release.promise;
    });
    await entered.promise;
    try {
      const message = await timeoutMessage(t.waitFor(() => false, { timeoutMs: 20 }));
      expect(message).toMatch(
        /^condition not met within 20ms: false\n {2}1 pass still running: demo\.protean\.dev\/v1\/webapps prod\/shop \(for \d+ms\)\n {2}no pass of this controller failed$/,
      );
    } finally {
      release.resolve();
    }
  });

  it(`waits ${testWaitForTimeoutMs}ms by default, below Jest's 5 s test timeout, and says how to raise it`, async () => {
    expect(testWaitForTimeoutMs).toBeLessThan(5_000);
    t = createTestController();
    await t.start();
    const message = await timeoutMessage(t.waitFor(() => false));
    expect(message).toBe(
      `condition not met within ${testWaitForTimeoutMs}ms: false\n` +
        `  ${testWaitForTimeoutMs}ms is createTestController's default waitFor timeout (below Jest's 5 s test timeout); ` +
        'raise it with t.waitFor(condition, { timeoutMs }) or createTestController({ waitForTimeoutMs })\n' +
        '  no pass of this controller failed',
    );
  });

  it("keeps the condition's last error as the timeout error's cause and a given message", async () => {
    t = createTestController();
    const err = await t.waitFor(() => expect(1).toBe(2) as never, { timeoutMs: 20, message: 'one is two' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitForTimeoutError);
    expect((err as Error).message).toMatch(/^condition not met within 20ms: one is two: expect\(received\)/);
    expect((err as Error).cause).toBeInstanceOf(Error);
  });
});
