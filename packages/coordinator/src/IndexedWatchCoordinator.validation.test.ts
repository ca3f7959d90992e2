import { describe, expect, it } from '@jest/globals';
import { InvalidGroupVersionResourceError, InvalidObjectNameError } from '@protean/core';
import { parseSelector } from './deps.testkit.js';
import { APP1, app1, configmaps, webapps } from './fixtures.testkit.js';
import { event, newHarness } from './harness.testkit.js';
import { WatchRequestError } from './WatchRequestError.js';

const all = parseSelector('app=x');

describe('IndexedWatchCoordinator refuses watch requests that break Kubernetes naming rules', () => {
  it.each([
    [
      'a path as resource',
      { group: '', version: 'v1', resource: 'namespaces/default/configmaps' },
      'resource',
      'namespaces/default/configmaps',
    ],
    ['".." as resource', { group: '', version: 'v1', resource: '..' }, 'resource', '..'],
    ['a kind-like resource', { group: '', version: 'v1', resource: 'ConfigMaps' }, 'resource', 'ConfigMaps'],
    ['a subresource', { group: '', version: 'v1', resource: 'pods/status' }, 'resource', 'pods/status'],
    ['a slash in the group', { group: 'a/b', version: 'v1', resource: 'things' }, 'group', 'a/b'],
    ['a path in the version', { group: '', version: 'v1/..', resource: 'configmaps' }, 'version', 'v1/..'],
  ])(
    'rejects %s with a WatchRequestError caused by InvalidGroupVersionResourceError, ensuring nothing',
    async (_what, gvr, field, value) => {
      const { coordinator, watchManager } = newHarness();
      const w = coordinator.forInstance(webapps, app1);
      const err = await w.watch({ nodeId: 'child', gvr, selector: all }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WatchRequestError);
      const message = (err as Error).message;
      expect(message).toContain('instance demo.protean.dev/v1/webapps default/app1, node "child"');
      expect(message).toContain(`${field} ${JSON.stringify(value)}`);
      const cause = (err as Error).cause;
      expect(cause).toBeInstanceOf(InvalidGroupVersionResourceError);
      expect(cause).toMatchObject({ field, value });
      expect(watchManager.calls).toEqual([]);
      expect(coordinator.watchRequestCount()).toEqual({ scalar: 0, collection: 0 });
      expect(coordinator.instanceWatchCount()).toBe(0);
    },
  );

  it.each([
    ['an upper-case namespace', { namespace: 'Default', name: 'cm' }, 'namespace', 'Default'],
    ['a namespace with a slash', { namespace: 'default/configmaps', selector: all }, 'namespace', 'default/configmaps'],
    ['a ".." name', { namespace: 'default', name: '..' }, 'name', '..'],
    ['a name with a slash', { namespace: 'default', name: 'a/b' }, 'name', 'a/b'],
    ['a name with "%"', { namespace: 'default', name: 'a%2Fb' }, 'name', 'a%2Fb'],
  ])('rejects %s with a WatchRequestError caused by InvalidObjectNameError', async (_what, target, field, value) => {
    const { coordinator, watchManager } = newHarness();
    const w = coordinator.forInstance(webapps, app1);
    const err = await w.watch({ nodeId: 'child', gvr: configmaps, ...target }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WatchRequestError);
    expect((err as Error).message).toContain(`invalid ${field} ${JSON.stringify(value)}`);
    expect((err as Error).message).toContain('on /v1/configmaps');
    expect((err as Error).cause).toBeInstanceOf(InvalidObjectNameError);
    expect(watchManager.calls).toEqual([]);
    expect(coordinator.instanceWatchCount()).toBe(0);
  });

  it("keeps the instance's valid requests when a later one is refused", async () => {
    const { coordinator, enqueued } = newHarness();
    const w = coordinator.forInstance(webapps, app1);
    await w.watch({ nodeId: 'ok', gvr: configmaps, namespace: 'default', name: 'cm' });
    await expect(w.watch({ nodeId: 'bad', gvr: { ...configmaps, resource: '..' }, selector: all })).rejects.toThrow(WatchRequestError);
    w.done(true);
    expect(coordinator.watchRequestCount()).toEqual({ scalar: 1, collection: 0 });
    coordinator.routeEvent(event(configmaps, 'default', 'cm'));
    expect(enqueued.take()).toEqual([APP1]);
  });

  it('accepts the empty namespace (cluster-scoped or every namespace) and dotted names', async () => {
    const { coordinator } = newHarness();
    const w = coordinator.forInstance(webapps, app1);
    await w.watch({ nodeId: 'a', gvr: { group: '', version: 'v1', resource: 'namespaces' }, namespace: '', name: 'kube-system' });
    await w.watch({ nodeId: 'b', gvr: configmaps, namespace: 'default', name: 'my.config' });
    await w.watch({ nodeId: 'c', gvr: configmaps, namespace: '', selector: all });
    w.done(true);
    expect(coordinator.watchRequestCount()).toEqual({ scalar: 2, collection: 1 });
  });
});
