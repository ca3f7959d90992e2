import { afterEach, describe, expect, it } from '@jest/globals';
import { noteWrite, requeue, TOKENS, type GroupVersionResource, type Handler } from '@protean/core';
import { FakeLeadership } from '@protean/core/testing';
import { createTestController, type TestController } from '@protean/testing';
import type { MetricsServer } from './MetricsServer.js';
import { instrumentContainer, type ProteanMetrics } from './instrumentContainer.js';

const webapps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };

/** Parses Prometheus text format into `name{labels}` -> value. */
function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

describe('instrumentContainer', () => {
  let t: TestController;
  let metrics: ProteanMetrics;
  let server: MetricsServer | undefined;

  afterEach(async () => {
    await t.dispose();
    await server?.stop();
    server = undefined;
  });

  function compose(): void {
    t = createTestController({
      logFailures: false,
      configure: (container) => {
        metrics = instrumentContainer(container, { processMetrics: false });
      },
    });
  }

  async function scrape(): Promise<Map<string, number>> {
    server ??= await metrics.serve();
    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    return parseMetrics(await res.text());
  }

  it('exports dynamic_controller_* and workqueue_* figures that follow what the controller did', async () => {
    compose();
    t.source.add(webapps, { name: 'a', namespace: 'ns' });
    t.source.add(webapps, { name: 'b', namespace: 'ns' });
    let failuresLeft = 1;
    const handler: Handler = async (req) => {
      const watcher = t.controller.watchCoordinator().forInstance(webapps, req);
      await watcher.watch({ nodeId: 'cm', gvr: configmaps, namespace: req.namespace, name: `${req.name}-cm` });
      watcher.done(true);
      if (req.name === 'b' && failuresLeft-- > 0) throw requeue.needed();
    };
    await t.start();
    await t.register(webapps, handler);
    await t.waitFor(() => t.watchCoordinator.instanceWatchCount() === 2 && t.queue.len() === 0 && failuresLeft < 0);
    // A child change routed to instance a; an unrelated one routed nowhere.
    t.source.add(configmaps, { name: 'a-cm', namespace: 'ns' });
    t.source.add(configmaps, { name: 'other', namespace: 'ns' });

    const w = '{gvr="demo.protean.dev/v1/webapps"}';
    let m = new Map<string, number>();
    await t.waitFor(async () => {
      m = await scrape();
      return m.get(`dynamic_controller_reconcile_total${w}`) === 4;
    });
    expect(m.get('dynamic_controller_requeue_total{gvr="demo.protean.dev/v1/webapps",type="needed"}')).toBe(1);
    expect(m.get('dynamic_controller_parent_events_total{gvr="demo.protean.dev/v1/webapps",event_type="add"}')).toBe(2);
    expect(m.get('dynamic_controller_informer_events_total{gvr="/v1/configmaps",event_type="add"}')).toBe(2);
    expect(m.get('dynamic_controller_route_total{gvr="/v1/configmaps"}')).toBe(2);
    expect(m.get('dynamic_controller_route_match_total{gvr="/v1/configmaps"}')).toBe(1);
    expect(m.get(`dynamic_controller_reconcile_duration_seconds_count${w}`)).toBe(4);
    expect(m.get(`dynamic_controller_informer_sync_duration_seconds_count${w}`)).toBe(1);
    expect(m.get('dynamic_controller_informer_sync_duration_seconds_count{gvr="/v1/configmaps"}')).toBe(1);
    expect(m.get('dynamic_controller_gvr_count')).toBe(1);
    expect(m.get('dynamic_controller_watch_count')).toBe(2);
    expect(m.get('dynamic_controller_instance_watch_count')).toBe(2);
    expect(m.get('dynamic_controller_watch_request_count{type="scalar"}')).toBe(2);
    expect(m.get('dynamic_controller_watch_request_count{type="collection"}')).toBe(0);
    expect(m.get('dynamic_controller_queue_length')).toBe(0);
    // No lease in this process: nothing counts as unfenced.
    expect(m.get('dynamic_controller_unfenced_writes')).toBe(0);
    const q = '{name="dynamic-controller-queue"}';
    expect(m.get(`workqueue_adds_total${q}`)).toBe(4);
    expect(m.get(`workqueue_depth${q}`)).toBe(0);
    expect(m.get(`workqueue_work_duration_seconds_count${q}`)).toBe(4);
    expect(m.get(`workqueue_queue_duration_seconds_count${q}`)).toBe(4);
  });

  it('counts handler errors and synchronous throws separately', async () => {
    compose();
    t.source.add(webapps, { name: 'a', namespace: 'ns' });
    t.source.add(webapps, { name: 'b', namespace: 'ns' });
    const handler = ((req: { name: string }) => {
      if (req.name === 'a') throw new Error('thrown synchronously');
      return Promise.reject(new Error('rejected'));
    }) as Handler;
    await t.start();
    await t.register(webapps, handler);
    let m = new Map<string, number>();
    // queueMaxRetries is 3 in the test config: 4 attempts each, then dropped.
    await t.waitFor(async () => {
      m = await scrape();
      return m.get('dynamic_controller_dropped_total{gvr="demo.protean.dev/v1/webapps"}') === 2;
    });
    expect(m.get('dynamic_controller_handler_errors_total{gvr="demo.protean.dev/v1/webapps"}')).toBe(8);
    expect(m.get('dynamic_controller_handler_exceptions_total{gvr="demo.protean.dev/v1/webapps"}')).toBe(4);
    expect(m.get('workqueue_retries_total{name="dynamic-controller-queue"}')).toBe(6);
  });

  it('counts a cached read that went to the API server after the cache stayed behind a write', async () => {
    t = createTestController({
      logFailures: false,
      config: { readYourWritesTimeoutMs: 1 },
      configure: (container) => {
        metrics = instrumentContainer(container, { processMetrics: false });
      },
    });
    t.source.add(webapps, { name: 'a', namespace: 'ns' });
    let read = false;
    const handler: Handler = async (req, ctx) => {
      const refetch = async (): Promise<undefined> => undefined;
      // A delete the informer has not seen yet: the read waits 1 ms, then asks the server.
      noteWrite(ctx.signal, { gvr: webapps, namespace: req.namespace, name: req.name, deleted: true, refetch });
      read = (await ctx.get(webapps, req.namespace, req.name)) === undefined;
    };
    await t.start();
    await t.register(webapps, handler, { cache: [webapps] });
    await t.waitFor(() => read);
    const m = await scrape();
    expect(m.get('dynamic_controller_cache_read_fallbacks_total{gvr="demo.protean.dev/v1/webapps"}')).toBe(1);
  });

  it('counts a pass cut off by deregister as cancelled, not as a handler error nor a retry', async () => {
    compose();
    t.source.add(webapps, { name: 'a', namespace: 'ns' });
    let started = 0;
    const handler: Handler = (_req, ctx) => {
      started++;
      return new Promise<void>((_, reject) =>
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), { once: true }),
      );
    };
    await t.start();
    await t.register(webapps, handler);
    await t.waitFor(() => started === 1);
    await t.controller.deregister(webapps);
    const w = '{gvr="demo.protean.dev/v1/webapps"}';
    let m = new Map<string, number>();
    await t.waitFor(async () => {
      m = await scrape();
      return m.get(`dynamic_controller_cancelled_total${w}`) === 1;
    });
    expect(m.get(`dynamic_controller_reconcile_total${w}`)).toBe(1);
    expect(m.get(`dynamic_controller_handler_errors_total${w}`) ?? 0).toBe(0);
    expect(m.get(`dynamic_controller_requeue_total{gvr="demo.protean.dev/v1/webapps",type="rate_limited"}`) ?? 0).toBe(0);
    expect(m.get('workqueue_retries_total{name="dynamic-controller-queue"}') ?? 0).toBe(0);
  });

  it('answers /readyz 503 until every registered parent informer has synced, and /healthz always', async () => {
    compose();
    server = await metrics.serve();
    const readyz = async (): Promise<[number, string]> => {
      const res = await fetch(`${server!.url}/readyz`);
      return [res.status, await res.text()];
    };
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await readyz())[0]).toBe(503);
    await t.start();
    expect(await readyz()).toEqual([200, '[+]parent-informers-synced ok\n[+]parent-informers-healthy ok\nreadyz check passed\n']);

    t.source.setAutoSync(webapps, false);
    const registering = t.register(webapps, async () => {});
    await t.waitFor(() => t.source.informers(webapps).length === 1);
    const [status, body] = await readyz();
    expect(status).toBe(503);
    expect(body).toContain('not synced: demo.protean.dev/v1/webapps');
    t.source.informer(webapps)!.markSynced();
    await registering;
    expect((await readyz())[0]).toBe(200);
    expect((await fetch(`${server.url}/nope`)).status).toBe(404);
  });

  it('with leader election: ready on a synced standby, and exports leadership and its transitions per identity', async () => {
    const leadership = new FakeLeadership('replica-b');
    t = createTestController({
      logFailures: false,
      configure: (container) => {
        container.bind(TOKENS.leadership).toConstantValue(leadership);
        metrics = instrumentContainer(container, { processMetrics: false });
      },
    });
    t.source.add(webapps, { name: 'a', namespace: 'ns' });
    let reconciled = 0;
    await t.start();
    await leadership.whenRunning();
    await t.register(webapps, async () => {
      reconciled++;
    });
    server = await metrics.serve();
    const ready = await fetch(`${server.url}/readyz`);
    expect([ready.status, await ready.text()]).toEqual([
      200,
      '[+]parent-informers-synced ok\n[+]parent-informers-healthy ok\nreadyz check passed\n',
    ]);
    const id = 'identity="replica-b"';
    let m = await scrape();
    expect(m.get(`dynamic_controller_leader{${id}}`)).toBe(0);
    expect(reconciled).toBe(0);

    void leadership.elect();
    await t.waitFor(() => reconciled === 1);
    m = await scrape();
    expect(m.get(`dynamic_controller_leader{${id}}`)).toBe(1);
    expect(m.get(`dynamic_controller_leader_transitions_total{${id},transition="started_leading"}`)).toBe(1);

    await leadership.depose();
    m = await scrape();
    expect(m.get(`dynamic_controller_leader{${id}}`)).toBe(0);
    expect(m.get(`dynamic_controller_leader_transitions_total{${id},transition="stopped_leading"}`)).toBe(1);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  it('adds readiness checks passed to serve() to the built-in one', async () => {
    compose();
    await t.start();
    let cacheWarm = false;
    server = await metrics.serve({ readiness: [{ name: 'cache-warm', ready: () => cacheWarm }] });
    const first = await fetch(`${server.url}/readyz`);
    expect(first.status).toBe(503);
    expect(await first.text()).toBe(
      '[+]parent-informers-synced ok\n[+]parent-informers-healthy ok\n[-]cache-warm failed\nreadyz check failed\n',
    );
    cacheWarm = true;
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });
});
