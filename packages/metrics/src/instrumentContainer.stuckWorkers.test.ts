import { afterEach, describe, expect, it } from '@jest/globals';
import type { Config, GroupVersionResource } from '@protean/core';
import { Deferred, FakeClock } from '@protean/core/testing';
import { createTestController, type TestController } from '@protean/testing';
import type { MetricsServer } from './MetricsServer.js';
import { instrumentContainer, type InstrumentOptions, type ProteanMetrics } from './instrumentContainer.js';

/* The workers-progressing check of /healthz, on the controller's fake clock. */

const webapps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };

let t: TestController | undefined;
let server: MetricsServer | undefined;
let clock: FakeClock;
let metrics: ProteanMetrics;
const holds: Deferred[] = [];

afterEach(async () => {
  for (const h of holds.splice(0)) h.resolve();
  await t?.dispose();
  await server?.stop();
  t = server = undefined;
});

async function start(config: Partial<Config>, options: InstrumentOptions = {}): Promise<TestController> {
  clock = new FakeClock();
  t = createTestController({
    clock,
    config,
    configure: (container) => {
      metrics = instrumentContainer(container, { processMetrics: false, ...options });
    },
  });
  await t.start();
  server = await metrics.serve();
  return t;
}

/** A handler that ignores its signal: it returns only when the test lets it. */
function ignoringSignal(): { release: () => void; handler: () => Promise<void> } {
  const hold = new Deferred();
  holds.push(hold);
  return { release: () => hold.resolve(), handler: () => hold.promise };
}

async function healthz(): Promise<[number, string]> {
  const res = await fetch(`${server!.url}/healthz`);
  return [res.status, await res.text()];
}

describe('/healthz workers-progressing', () => {
  it('fails once every worker is busy past reconcileTimeoutMs plus the grace, naming the instances, and passes when they return', async () => {
    const tc = await start({ workers: 1, reconcileTimeoutMs: 1_000 }, { stuckWorkers: { stuckGraceMs: 500 } });
    const { release, handler } = ignoringSignal();
    tc.source.add(webapps, { name: 'a', namespace: 'ns' });
    await tc.register(webapps, handler);
    await tc.waitFor(() => tc.controller.queueStatus().inFlight.length === 1);

    // The timeout aborts ctx.signal at 1 s; the handler ignores it.
    await clock.advanceAsync(1_499);
    expect((await healthz())[0]).toBe(200);
    await clock.advanceAsync(1);
    const [status, body] = await healthz();
    expect(status).toBe(503);
    expect(body).toContain(
      '[-]workers-progressing failed: every worker (1) is busy with a pass older than reconcileTimeoutMs 1000 ms + stuckGraceMs 500 ms: demo.protean.dev/v1/webapps ns/a for 2 s\n',
    );
    expect(body).toContain('[+]informers-progressing ok');

    release();
    await tc.waitFor(() => tc.controller.queueStatus().inFlight.length === 0);
    expect((await healthz())[0]).toBe(200);
  });

  it('passes while one worker of two is free', async () => {
    const tc = await start({ workers: 2, reconcileTimeoutMs: 1_000 }, { stuckWorkers: { stuckGraceMs: 0 } });
    const { handler } = ignoringSignal();
    tc.source.add(webapps, { name: 'a', namespace: 'ns' });
    await tc.register(webapps, handler);
    await tc.waitFor(() => tc.controller.queueStatus().inFlight.length === 1);
    await clock.advanceAsync(60_000);
    expect((await healthz())[0]).toBe(200);
    expect(metrics.stuckWorkersRule.assess(tc.controller.queueStatus()).stuckPasses.map((p) => p.name)).toEqual(['a']);
  });

  it('uses stuckAfterMs when passes have no time limit, and never fails without it', async () => {
    const tc = await start({ workers: 1, reconcileTimeoutMs: 0 }, { stuckWorkers: { stuckAfterMs: 10_000 } });
    const { handler } = ignoringSignal();
    tc.source.add(webapps, { name: 'a', namespace: 'ns' });
    await tc.register(webapps, handler);
    await tc.waitFor(() => tc.controller.queueStatus().inFlight.length === 1);
    await clock.advanceAsync(9_999);
    expect((await healthz())[0]).toBe(200);
    await clock.advanceAsync(1);
    expect(await healthz()).toEqual([503, expect.stringContaining('stuckAfterMs 10000 ms: demo.protean.dev/v1/webapps ns/a for 10 s')]);
  });
});
