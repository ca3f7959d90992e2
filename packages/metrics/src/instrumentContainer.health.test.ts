import { afterEach, describe, expect, it } from '@jest/globals';
import type { GroupVersionResource } from '@protean/core';
import { FakeClock, FakeInformerSource, FakeStatusError } from '@protean/core/testing';
import { createTestController, type TestController } from '@protean/testing';
import type { MetricsServer } from './MetricsServer.js';
import { instrumentContainer, type InstrumentOptions, type ProteanMetrics } from './instrumentContainer.js';

/*
 * The informer health rules behind /readyz, /healthz, /statusz/informers and
 * the dynamic_controller_informer_* gauges, over fake informers whose health
 * ages move with a FakeClock.
 */

const webapps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const gadgets: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'gadgets' };
const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const GRACE_MS = 60_000;
const LIVENESS_MS = 300_000;

let t: TestController | undefined;
let server: MetricsServer | undefined;
let clock: FakeClock;
let metrics: ProteanMetrics;

afterEach(async () => {
  await t?.dispose();
  await server?.stop();
  t = server = undefined;
});

async function start(options: InstrumentOptions = {}, autoSync = true): Promise<TestController> {
  clock = new FakeClock();
  t = createTestController({
    source: new FakeInformerSource({ autoSync }),
    watchManager: { clock },
    configure: (container) => {
      metrics = instrumentContainer(container, {
        processMetrics: false,
        health: { readinessGraceMs: GRACE_MS, livenessGraceMs: LIVENESS_MS },
        ...options,
      });
    },
  });
  await t.start();
  server = await metrics.serve();
  return t;
}

async function get(path: string): Promise<[number, string]> {
  const res = await fetch(`${server!.url}${path}`);
  return [res.status, await res.text()];
}

describe('informer health endpoints', () => {
  it('fails /readyz naming the parent GVR once its informer has failed past the grace period, and passes again when it recovers', async () => {
    const tc = await start();
    await tc.register(webapps, async () => {});
    const informer = tc.source.informer(webapps)!;
    informer.reportWatchError(new FakeStatusError(403));
    clock.advance(GRACE_MS - 1);
    expect((await get('/readyz'))[0]).toBe(200);

    clock.advance(1);
    const [status, body] = await get('/readyz');
    expect(status).toBe(503);
    expect(body).toContain('[+]parent-informers-synced ok\n');
    expect(body).toContain(
      '[-]parent-informers-healthy failed: demo.protean.dev/v1/webapps: failing for 60 s (1 in a row): 403: Forbidden\n',
    );
    expect(body).toMatch(/readyz check failed\n$/);
    // Not ready is not dead.
    expect((await get('/healthz'))[0]).toBe(200);

    informer.relisted();
    expect((await get('/readyz'))[0]).toBe(200);
  });

  it('names the failure of a parent that has not synced yet in /readyz, while register() still waits', async () => {
    const tc = await start({}, false);
    const registering = tc.register(webapps, async () => {});
    registering.catch(() => {});
    const informer = tc.source.informer(webapps)!;
    expect((await get('/readyz'))[1]).toContain('[-]parent-informers-synced failed: not synced: demo.protean.dev/v1/webapps\n');
    informer.reportWatchError(new FakeStatusError(500, 'etcd leader changed'));
    const [status, body] = await get('/readyz');
    expect(status).toBe(503);
    expect(body).toContain(
      '[-]parent-informers-synced failed: not synced: demo.protean.dev/v1/webapps (failing: 500: etcd leader changed)\n',
    );
  });

  it('keeps /readyz passing while only a child informer (not a parent) fails', async () => {
    const tc = await start();
    await tc.register(webapps, async () => {});
    await tc.watchManager.ensureWatch(configmaps, 'coordinator');
    tc.source.informer(configmaps)!.reportWatchError(new FakeStatusError(403));
    clock.advance(GRACE_MS * 2);
    expect((await get('/readyz'))[0]).toBe(200);
  });

  it('fails /healthz only when every informer has been down for the liveness grace period', async () => {
    const tc = await start();
    expect(await get('/healthz')).toEqual([200, '[+]informers-progressing ok\n[+]workers-progressing ok\nhealthz check passed\n']);
    await tc.register(webapps, async () => {});
    await tc.register(gadgets, async () => {});
    const [a, b] = [tc.source.informer(webapps)!, tc.source.informer(gadgets)!];
    a.reportWatchError(new FakeStatusError(503));
    clock.advance(LIVENESS_MS);
    // One informer still hears from the server: the process makes progress.
    b.recover();
    expect((await get('/healthz'))[0]).toBe(200);

    b.reportWatchError(new FakeStatusError(503));
    clock.advance(LIVENESS_MS - 1);
    expect((await get('/healthz'))[0]).toBe(200);
    clock.advance(1);
    const [status, body] = await get('/healthz');
    expect(status).toBe(503);
    expect(body).toContain('[-]informers-progressing failed: every informer has been failing or silent for over 300 s: ');
    expect(body).toContain('demo.protean.dev/v1/webapps: failing for 600 s');
    expect((await get('/livez'))[0]).toBe(503);

    a.recover();
    expect((await get('/healthz'))[0]).toBe(200);
  });

  it('serves every informer with the rules applied at /statusz/informers', async () => {
    const tc = await start();
    await tc.register(webapps, async () => {});
    tc.source.informer(webapps)!.reportWatchError(new FakeStatusError(404));
    clock.advance(GRACE_MS);
    const res = await fetch(`${server!.url}/statusz/informers`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await res.json()).toEqual({
      readinessGraceMs: GRACE_MS,
      livenessGraceMs: LIVENESS_MS,
      maxIdleMs: 300_000,
      informers: [
        {
          gvr: 'demo.protean.dev/v1/webapps',
          parent: true,
          owners: ['parent:demo.protean.dev/v1/webapps'],
          synced: true,
          healthy: false,
          down: false,
          problem: 'failing for 60 s (1 in a row): 404: the server could not find the requested resource',
          idleMs: GRACE_MS,
          relists: 0,
          failing: { forMs: GRACE_MS, consecutive: 1, cause: '404: the server could not find the requested resource', status: 404 },
        },
      ],
    });
  });

  it('serves no /statusz/informers with statusEndpoint: false', async () => {
    await start({ statusEndpoint: false });
    expect((await get('/statusz/informers'))[0]).toBe(404);
  });

  it('exports the health of each informer as dynamic_controller_informer_* series', async () => {
    const tc = await start();
    await tc.register(webapps, async () => {});
    await tc.register(gadgets, async () => {});
    const a = tc.source.informer(webapps)!;
    a.relisted();
    a.reportWatchError(new FakeStatusError(403));
    a.reportWatchError(new FakeStatusError(403));
    clock.advance(GRACE_MS);
    const [, text] = await get('/metrics');
    const w = '{gvr="demo.protean.dev/v1/webapps"}';
    const g = '{gvr="demo.protean.dev/v1/gadgets"}';
    for (const line of [
      `dynamic_controller_informer_synced${w} 1`,
      `dynamic_controller_informer_healthy${w} 0`,
      `dynamic_controller_informer_healthy${g} 1`,
      `dynamic_controller_informer_failing_seconds${w} 60`,
      `dynamic_controller_informer_failing_seconds${g} 0`,
      `dynamic_controller_informer_consecutive_failures${w} 2`,
      `dynamic_controller_informer_idle_seconds${w} 60`,
      `dynamic_controller_informer_relists_total${w} 1`,
    ]) {
      expect(text).toContain(`${line}\n`);
    }
    // A released informer leaves every series.
    await tc.controller.deregister(gadgets);
    const [, after] = await get('/metrics');
    const healthSeries = /^dynamic_controller_informer_(synced|healthy|idle_seconds|failing_seconds|consecutive_failures|relists_total)\{/;
    expect(after.split('\n').filter((l) => healthSeries.test(l) && l.includes(g))).toEqual([]);
    expect(after).toContain(`dynamic_controller_informer_healthy${w} 0\n`);
  });
});
