import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { InvalidGroupVersionResourceError, type GroupVersionResource } from '@protean/core';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { MALFORMED_GVRS, malformedGvrTests, type MalformedGvrTarget } from '../e2e/malformedGvrTests.js';
import { startRealController, type RealController } from '../e2e/startRealController.js';
import { createTestController, HandlerRecorder, type TestController } from '@protean/testing';

const webapps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };

describe('DynamicController.register with a malformed GVR (fake informers)', () => {
  let t: TestController;

  afterEach(async () => {
    await t.dispose();
  });

  it.each(MALFORMED_GVRS)('refuses %s, leaving no informer, handler or watch coordinator state', async (_what, gvr, field) => {
    t = createTestController();
    const h = new HandlerRecorder();
    await t.start();
    const err = await t.register(gvr, h.handler).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidGroupVersionResourceError);
    expect((err as Error).message).toContain(`${field} ${JSON.stringify(gvr[field])}`);
    expect(t.source.informers()).toEqual([]);
    expect(t.controller.activeWatchCount()).toBe(0);
    expect(t.controller.registeredGVRs()).toEqual([]);
    expect(t.watchCoordinator.instanceWatchCount()).toBe(0);
    expect(h.count()).toBe(0);
  });

  it('refuses a malformed GVR before the controller-state check, and a valid one still registers afterwards', async () => {
    t = createTestController();
    await expect(t.controller.register({ group: '', version: 'v1', resource: '..' }, async () => {})).rejects.toThrow(
      InvalidGroupVersionResourceError,
    );
    await t.start();
    await expect(t.register({ ...webapps, resource: 'WebApps' }, async () => {})).rejects.toThrow(/resource "WebApps"/);
    await t.register(webapps, async () => {});
    expect(t.controller.registeredGVRs()).toEqual([webapps]);
    expect(t.controller.activeWatchCount()).toBe(1);
  });

  it('refuses a GVR that is not an object, quoting it', async () => {
    t = createTestController();
    await t.start();
    await expect(t.register('/v1/configmaps' as never, async () => {})).rejects.toThrow(/invalid GroupVersionResource "\/v1\/configmaps"/);
    expect(t.controller.activeWatchCount()).toBe(0);
  });
});

describe('on the in-memory API server, over the real list/watch stack', () => {
  let server: InMemoryApiServer;
  let rc: RealController;
  let target: MalformedGvrTarget;

  beforeAll(async () => {
    server = await InMemoryApiServer.start();
    const s = server;
    rc = startRealController({ kubeConfig: s.kubeConfig() });
    target = {
      rc,
      namespace: 'default',
      async createConfigMap(name) {
        s.create({ group: '', version: 'v1', resource: 'configmaps' }, { metadata: { namespace: 'default', name } });
      },
      requestPaths: () => s.requests().map((r) => r.path),
    };
  });

  afterAll(async () => {
    await rc?.stop();
    await server?.stop();
  });

  malformedGvrTests('in-memory API server', () => target);
});
