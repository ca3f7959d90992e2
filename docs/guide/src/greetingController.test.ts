import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { AlreadyOwnedError, KubeClient, type KubeObject } from '@protean/client';
import { silentLogger, type DynamicController, type GroupVersionResource, type ReconcileContext } from '@protean/core';
import { noObjectCache, waitFor } from '@protean/testing';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { composeController, GREETING_FINALIZER, greetingHandler, greetingRegisterOptions, greetings } from './greetingController.js';

const configmaps = { group: '', version: 'v1', resource: 'configmaps' };

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

describe('the first-controller guide', () => {
  let server: InMemoryApiServer;
  let controller: DynamicController;
  const abort = new AbortController();
  let running: Promise<void>;
  let custom: CustomObjectsApi;

  beforeAll(async () => {
    server = await InMemoryApiServer.start();
    server.registerResource({ ...greetings, kind: 'Greeting', namespaced: true, hasStatusSubresource: true });
    controller = composeController(server.kubeConfig(), silentLogger());
    custom = server.kubeConfig().makeApiClient(CustomObjectsApi);
    running = controller.start(abort.signal);
    await controller.register(greetings, greetingHandler(server.kubeConfig()), greetingRegisterOptions);
  });

  afterAll(async () => {
    abort.abort();
    await running;
    await server.stop();
  });

  it('creates the ConfigMap, follows spec changes and recreates it when deleted', async () => {
    const core = server.kubeConfig().makeApiClient(CoreV1Api);
    const text = async (): Promise<string | undefined> =>
      (await core.readNamespacedConfigMap({ namespace: 'default', name: 'hi-greeting' }).catch(() => undefined))?.data?.['text'];

    await custom.createNamespacedCustomObject({
      group: greetings.group,
      version: greetings.version,
      plural: greetings.resource,
      namespace: 'default',
      body: { apiVersion: 'guide.protean.dev/v1', kind: 'Greeting', metadata: { name: 'hi' }, spec: { text: 'hello' } },
    });
    await waitFor(async () => (await text()) === 'hello', { timeoutMs: 10_000 });

    server.patch(greetings, 'default', 'hi', { spec: { text: 'bonjour' } });
    await waitFor(async () => (await text()) === 'bonjour', { timeoutMs: 10_000 });

    await core.deleteNamespacedConfigMap({ namespace: 'default', name: 'hi-greeting' });
    await waitFor(async () => (await text()) === 'bonjour', { timeoutMs: 10_000 });
    expect(controller.watchCoordinator().watchRequestCount()).toEqual({ scalar: 1, collection: 0 });

    const child = await core.readNamespacedConfigMap({ namespace: 'default', name: 'hi-greeting' });
    const owner = server.get(greetings, 'default', 'hi');
    expect(child.metadata?.ownerReferences).toEqual([
      {
        apiVersion: 'guide.protean.dev/v1',
        kind: 'Greeting',
        name: 'hi',
        uid: owner?.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    // The ConfigMap's fields belong to the controller, by server-side apply.
    expect(child.metadata?.managedFields?.map((m) => [m.manager, m.operation])).toEqual([['greeting-controller', 'Apply']]);

    // And the Greeting got an Event saying so.
    const events = { group: 'events.k8s.io', version: 'v1', resource: 'events' };
    await waitFor(() => server.list(events, 'default').some((e) => (e['regarding'] as { uid?: string }).uid === owner?.metadata.uid), {
      timeoutMs: 10_000,
    });
    const [event] = server.list(events, 'default').filter((e) => (e['regarding'] as { uid?: string }).uid === owner?.metadata.uid);
    expect(event).toMatchObject({
      type: 'Normal',
      reason: 'ConfigMapApplied',
      action: 'Apply',
      reportingController: 'guide.protean.dev/greeting-controller',
    });
  });

  it('reports a Ready condition for the generation it reconciled, moving lastTransitionTime only on a status change', async () => {
    await custom.createNamespacedCustomObject({
      group: greetings.group,
      version: greetings.version,
      plural: greetings.resource,
      namespace: 'default',
      body: { apiVersion: 'guide.protean.dev/v1', kind: 'Greeting', metadata: { name: 'cond' }, spec: { text: 'hi' } },
    });
    interface Ready {
      type: string;
      status: string;
      reason: string;
      observedGeneration?: number;
      lastTransitionTime: string;
    }
    const ready = (): Ready | undefined => {
      const status = server.get(greetings, 'default', 'cond')?.['status'] as { conditions?: Ready[] } | undefined;
      return status?.conditions?.find((c) => c.type === 'Ready');
    };
    await waitFor(() => ready()?.observedGeneration === 1, { timeoutMs: 10_000 });
    const first = ready()!;
    expect(first).toMatchObject({ status: 'True', reason: 'ConfigMapApplied' });
    server.patch(greetings, 'default', 'cond', { spec: { text: 'hey' } });
    await waitFor(() => ready()?.observedGeneration === 2, { timeoutMs: 10_000 });
    expect(ready()?.lastTransitionTime).toBe(first.lastTransitionTime);
    await custom.deleteNamespacedCustomObject({
      group: greetings.group,
      version: greetings.version,
      plural: greetings.resource,
      namespace: 'default',
      name: 'cond',
    });
    await waitFor(() => controller.watchCoordinator().instanceWatchCount() === 1, { timeoutMs: 10_000 }); // only hi's
  });

  it('runs its clean-up on a deleted Greeting, then lets it go, forgets its watches and stops the ConfigMap informer', async () => {
    expect(controller.activeWatchCount()).toBe(2);
    const hi = server.get(greetings, 'default', 'hi');
    expect(hi?.metadata.finalizers).toEqual([GREETING_FINALIZER]);
    await custom.deleteNamespacedCustomObject({
      group: greetings.group,
      version: greetings.version,
      plural: greetings.resource,
      namespace: 'default',
      name: 'hi',
    });
    await waitFor(() => controller.watchCoordinator().instanceWatchCount() === 0, { timeoutMs: 10_000 });
    await waitFor(() => controller.activeWatchCount() === 1, { timeoutMs: 10_000 }); // only the Greeting informer
    // The finalizer held the Greeting until its clean-up (a Farewell Event) ran and removed it.
    await waitFor(() => server.get(greetings, 'default', 'hi') === undefined, { timeoutMs: 10_000 });
    const events = { group: 'events.k8s.io', version: 'v1', resource: 'events' };
    const farewell = server
      .list(events, 'default')
      .filter((e) => (e['regarding'] as { uid?: string }).uid === hi?.metadata.uid && e['reason'] === 'Farewell');
    expect(farewell).toHaveLength(1);
  });

  it('refuses, as the guide promises, a ConfigMap another controller owns: AlreadyOwnedError, and nothing is written', async () => {
    const client = new KubeClient({ kubeConfig: server.kubeConfig() });
    try {
      const other = await client.create(configmaps, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'someone', namespace: 'default' },
      });
      const taken = await client.create(configmaps, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: 'taken-greeting',
          namespace: 'default',
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'someone', uid: other.metadata.uid as string, controller: true }],
        },
        data: { text: 'not yours' },
      });
      await client.create(greetings, {
        apiVersion: 'guide.protean.dev/v1',
        kind: 'Greeting',
        metadata: { name: 'taken', namespace: 'default' },
        spec: { text: 'mine' },
      });
      const ctx: ReconcileContext = {
        signal: new AbortController().signal,
        logger: silentLogger(),
        gvr: greetings,
        watcher: { watch: async () => undefined, done: () => undefined },
        ...noObjectCache,
        // Called outside a controller: the handler's cached read goes to the server instead.
        get: <T>(gvr: GroupVersionResource, ns: string, n: string) =>
          client.find(gvr, { namespace: ns, name: n }) as Promise<T | undefined>,
      };
      const refused = await greetingHandler(server.kubeConfig())({ namespace: 'default', name: 'taken' }, ctx).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(AlreadyOwnedError);
      expect(refused).toMatchObject({ existing: { kind: 'ConfigMap', name: 'someone', uid: other.metadata.uid } });
      const after = await client.get<ConfigMap>(configmaps, { namespace: 'default', name: 'taken-greeting' });
      expect(after.metadata.resourceVersion).toBe(taken.metadata.resourceVersion);
      expect(after.data).toEqual({ text: 'not yours' });
    } finally {
      client.close();
    }
  });
});
