import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AlreadyOwnedError, controllerOf, EVENTS, findStatusCondition, KubeClient, type Condition, type KubeObject } from '@protean/client';
import { silentLogger, type DynamicController, type GroupVersionResource, type ReconcileContext } from '@protean/core';
import { noObjectCache } from '@protean/core/testing';
import { startKubeApiServer, waitUntil, type KubeApiServer } from '@protean/envtest';
import { PassTracker } from '@protean/testing';
import { composeController, greetingHandler, greetingRegisterOptions, greetings } from './greetingController.js';

const configmaps = { group: '', version: 'v1', resource: 'configmaps' };
const crds = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };

interface Greeting extends KubeObject {
  spec?: { text?: string };
  status?: { conditions?: Condition[] };
}

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

// The guide's controller, unchanged, against a real kube-apiserver with kube-controller-manager's garbage collector.
describe('the first-controller guide on a real kube-apiserver', () => {
  let server: KubeApiServer;
  let controller: DynamicController;
  let client: KubeClient;
  const abort = new AbortController();
  let running: Promise<void>;
  const passes = new PassTracker();

  beforeAll(async () => {
    server = await startKubeApiServer({ controllers: ['garbagecollector'] });
    client = new KubeClient({ kubeConfig: server.kubeConfig });
    await client.create(crds, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `greetings.${greetings.group}` },
      spec: {
        group: greetings.group,
        scope: 'Namespaced',
        names: { plural: 'greetings', singular: 'greeting', kind: 'Greeting', listKind: 'GreetingList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    });
    await waitUntil(
      () =>
        client.list(greetings).then(
          () => true,
          () => false,
        ),
      'greetings to be served',
      30_000,
    );
    controller = composeController(server.kubeConfig, silentLogger());
    running = controller.start(abort.signal);
    // The guide's handler, counted: the test deletes the Greeting only once no pass has run for a second.
    const handler = greetingHandler(server.kubeConfig);
    await controller.register(greetings, passes.wrap(handler), greetingRegisterOptions);
  });

  afterAll(async () => {
    abort.abort();
    await running;
    client?.close();
    await server?.stop();
  });

  it('applies an owned ConfigMap, follows the spec, reports Ready with observedGeneration and records an Event', async () => {
    const text = async (): Promise<string | undefined> =>
      (await client.find<ConfigMap>(configmaps, { namespace: 'default', name: 'hi-greeting' }))?.data?.['text'];
    const greeting = await client.create<Greeting>(greetings, {
      apiVersion: 'guide.protean.dev/v1',
      kind: 'Greeting',
      metadata: { name: 'hi', namespace: 'default' },
      spec: { text: 'hello' },
    });
    await waitUntil(async () => (await text()) === 'hello', 'the ConfigMap to hold "hello"', 20_000);
    await client.patch(greetings, { namespace: 'default', name: 'hi' }, { spec: { text: 'bonjour' } });
    await waitUntil(async () => (await text()) === 'bonjour', 'the ConfigMap to hold "bonjour"', 20_000);
    const ready = async (): Promise<Condition | undefined> =>
      findStatusCondition((await client.get<Greeting>(greetings, { namespace: 'default', name: 'hi' })).status?.conditions, 'Ready');
    await waitUntil(async () => (await ready())?.observedGeneration === 2, 'Ready for generation 2', 20_000);
    expect(await ready()).toMatchObject({ status: 'True', reason: 'ConfigMapApplied' });

    const child = await client.get<ConfigMap>(configmaps, { namespace: 'default', name: 'hi-greeting' });
    expect(controllerOf(child)).toEqual({
      apiVersion: 'guide.protean.dev/v1',
      kind: 'Greeting',
      name: 'hi',
      uid: greeting.metadata.uid,
      controller: true,
      blockOwnerDeletion: true,
    });
    expect(child.metadata.managedFields?.map((m) => [m.manager, m.operation])).toEqual([['greeting-controller', 'Apply']]);

    const about = async (): Promise<KubeObject[]> =>
      (await client.list(EVENTS, { namespace: 'default' })).filter(
        (e) => (e as { regarding?: { uid?: string } }).regarding?.uid === greeting.metadata.uid,
      );
    await waitUntil(async () => (await about()).length > 0, 'an Event about the Greeting', 20_000);
    expect((await about())[0]).toMatchObject({ type: 'Normal', reason: 'ConfigMapApplied', action: 'Apply' });

    await client.delete(configmaps, { namespace: 'default', name: 'hi-greeting' });
    await waitUntil(async () => (await text()) === 'bonjour', 'the deleted ConfigMap to be re-created', 20_000);

    // Deleting the Greeting lets the garbage collector delete the ConfigMap it owns. First the controller settles:
    // a pass that read the Greeting before its deletion would apply the ConfigMap again after the collector
    // removed it (the controller's race, not what this test is about).
    await waitUntil(() => passes.quietFor(1000), 'no pass for a second after the ConfigMap came back', 20_000);
    await client.delete(greetings, { namespace: 'default', name: 'hi' });
    await waitUntil(async () => (await text()) === undefined, 'the garbage collector to delete the ConfigMap', 30_000);
  });

  it('refuses, as the guide promises, a ConfigMap another controller owns: AlreadyOwnedError, and nothing is written', async () => {
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
      get: <T>(gvr: GroupVersionResource, ns: string, n: string) => client.find(gvr, { namespace: ns, name: n }) as Promise<T | undefined>,
    };
    const refused = await greetingHandler(server.kubeConfig)({ namespace: 'default', name: 'taken' }, ctx).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AlreadyOwnedError);
    expect(refused).toMatchObject({ existing: { kind: 'ConfigMap', name: 'someone', uid: other.metadata.uid } });
    const after = await client.get<ConfigMap>(configmaps, { namespace: 'default', name: 'taken-greeting' });
    expect(after.metadata.resourceVersion).toBe(taken.metadata.resourceVersion);
    expect(after.data).toEqual({ text: 'not yours' });
  });
});
