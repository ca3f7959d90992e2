import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { namespacedNameKey } from '@protean/core';
import { createTestController, ObserverRecorder, routesOf, type TestController } from '@protean/testing';
import { InMemoryApiServer, type KubeObject } from '@protean/in-memory-apiserver';
import { KubernetesInformerSource } from '@protean/watch-manager';
import { ensureCrd } from './ensureCrd.js';
import { CONFIGMAPS, WEBAPP } from './kinds.js';
import type { ReconcileResult } from './ReconcileReporter.js';
import { createWebAppHandler, webAppRegisterOptions } from './webappController.js';
import type { WebAppStatus } from './WebAppObject.js';

let server: InMemoryApiServer;
let t: TestController<KubernetesInformerSource>;
let observer: ObserverRecorder;
let results: Array<{ instance: string; result: ReconcileResult }>;

const NS = 'shop-team';

beforeEach(async () => {
  server = await InMemoryApiServer.start();
  const kubeConfig = server.kubeConfig();
  await ensureCrd(kubeConfig, WEBAPP, { timeoutMs: 10_000 });
  observer = new ObserverRecorder();
  results = [];
  t = createTestController({ source: new KubernetesInformerSource({ kubeConfig }), observer, waitForTimeoutMs: 10_000 });
  await t.start();
  const handler = createWebAppHandler({
    kubeConfig,
    reporter: { finished: (_gvr, instance, result) => results.push({ instance: namespacedNameKey(instance), result }) },
  });
  await t.register(WEBAPP.gvr, handler, webAppRegisterOptions(WEBAPP.gvr));
});

afterEach(async () => {
  await t.dispose();
  await server.stop();
});

function createWebApp(name: string, spec: Record<string, unknown>): KubeObject {
  return server.create(WEBAPP.gvr, { apiVersion: 'demo.protean.dev/v1alpha1', kind: 'WebApp', metadata: { name, namespace: NS }, spec });
}

function statusOf(name: string): WebAppStatus | undefined {
  return server.get(WEBAPP.gvr, NS, name)?.['status'] as WebAppStatus | undefined;
}

/** A path that names one object of a collection (`/api/v1/namespaces/ns/configmaps/x`), not a subresource. */
function isObjectPath(path: string): boolean {
  return /\/namespaces\/[^/]+\/(configmaps|webapps)\/[^/]+$/.test(path);
}

function configMap(name: string): KubeObject | undefined {
  return server.get(CONFIGMAPS, NS, name);
}

/** Waits until the instance reports `count` labelled ConfigMaps for its current generation. */
async function waitForStatus(name: string, count: number): Promise<WebAppStatus> {
  const generation = (): number | undefined => server.get(WEBAPP.gvr, NS, name)?.metadata.generation;
  await t.waitFor(() => {
    const s = statusOf(name);
    return s?.configMapCount === count && s.observedGeneration === generation() && s.conditions?.[0]?.status === 'True';
  });
  return statusOf(name) as WebAppStatus;
}

describe('the WebApp handler', () => {
  it('creates the owned ConfigMap from the spec and reports count, observedGeneration and Ready in the status', async () => {
    const app = createWebApp('shop', { message: 'hello', replicas: 2 });

    const status = await waitForStatus('shop', 1);

    const cm = configMap('shop-config');
    expect(cm?.['data']).toEqual({ message: 'hello', replicas: '2' });
    expect(cm?.metadata.labels).toEqual({ app: 'shop' });
    expect(cm?.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'demo.protean.dev/v1alpha1',
        kind: 'WebApp',
        name: 'shop',
        uid: app.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(status).toMatchObject({
      configMapCount: 1,
      observedGeneration: 1,
      conditions: [{ type: 'Ready', status: 'True', reason: 'Reconciled', observedGeneration: 1 }],
    });
  });

  it('reads the instance and the ConfigMaps from the object cache: its passes send no GET or LIST for them', async () => {
    createWebApp('shop', { message: 'hello' });
    createWebApp('blog', { message: 'hi' });
    const from = server.requests().length;

    await waitForStatus('shop', 1);
    await waitForStatus('blog', 1);
    server.patch(WEBAPP.gvr, NS, 'shop', { spec: { message: 'sale' } });
    // The status is written before the pass ends and reports: wait for the third pass's report.
    const reconciled = (): number => results.filter((r) => r.result.outcome === 'reconciled').length;
    await t.waitFor(() => statusOf('shop')?.observedGeneration === 2 && reconciled() >= 3);

    const requests = server.requests().slice(from);
    // The handler's reads would be GETs of one object or LISTs by label; the informers' lists and watches are neither.
    const reads = requests.filter((r) => r.method === 'GET' && (isObjectPath(r.path) || r.query.has('labelSelector')));
    expect(reads.map((r) => r.path)).toEqual([]);
    expect(observer.cacheReadFallbacks).toEqual([]);
    // Its writes do reach the server: an apply of the ConfigMap and a status patch per instance at least.
    expect(requests.filter((r) => r.method === 'PATCH').length).toBeGreaterThanOrEqual(4);
  });

  it('counts the ConfigMap it applied in the same pass, before the watch event reaches the cache (read your writes)', async () => {
    createWebApp('shop', { message: 'hello' });

    await waitForStatus('shop', 1);
    await t.waitFor(() => results.some((r) => r.result.outcome === 'reconciled'));

    const first = results.find((r) => r.result.outcome === 'reconciled')?.result;
    expect(first).toMatchObject({ configMap: 'created', configMapCount: 1, statusWritten: true });
  });

  it('re-creates its ConfigMap when it is deleted, through the scalar watch', async () => {
    createWebApp('shop', { message: 'hello' });
    await waitForStatus('shop', 1);
    const before = configMap('shop-config')?.metadata.uid;

    server.delete(CONFIGMAPS, NS, 'shop-config');

    await t.waitFor(() => configMap('shop-config') !== undefined);
    expect(configMap('shop-config')?.metadata.uid).not.toBe(before);
    expect(configMap('shop-config')?.['data']).toEqual({ message: 'hello', replicas: '1' });
  });

  it('counts ConfigMaps labelled app=<instance>, and notices one relabelled away, through the collection watch', async () => {
    createWebApp('shop', {});
    await waitForStatus('shop', 1);

    server.create(CONFIGMAPS, { metadata: { name: 'extra', namespace: NS, labels: { app: 'shop' } } });
    await waitForStatus('shop', 2);
    expect(routesOf(t.controller, { gvr: CONFIGMAPS, ...configMap('extra')! })).toEqual([`${NS}/shop`]);

    server.patch(CONFIGMAPS, NS, 'extra', { metadata: { labels: { app: 'elsewhere' } } });
    const status = await waitForStatus('shop', 1);
    expect(status.conditions?.[0]?.message).toBe('1 ConfigMap(s) labelled app=shop');
    // Relabelled away: no longer routed, and explain says which requirement it fails.
    const relabelled = { gvr: CONFIGMAPS, ...configMap('extra')! };
    expect(routesOf(t.controller, relabelled)).toEqual([]);
    expect(t.controller.explain({ gvr: CONFIGMAPS, namespace: NS, name: 'extra', labels: { app: 'elsewhere' } }).misses).toContainEqual(
      expect.objectContaining({ instance: `${NS}/shop`, field: 'selector', reason: 'label app is "elsewhere", selector wants app=shop' }),
    );
    // The owned ConfigMap still routes, through the scalar watch and the label.
    await t.waitFor(() => t.controller.informer(CONFIGMAPS)?.get({ namespace: NS, name: 'shop-config' }) !== undefined);
    const owned = t.controller.explain({ gvr: CONFIGMAPS, namespace: NS, name: 'shop-config' });
    expect(owned.object.source).toBe('cache');
    expect(owned.routes.map((r) => [r.instance, r.watch.kind])).toEqual([
      [`${NS}/shop`, 'scalar'],
      [`${NS}/shop`, 'collection'],
    ]);
  });

  it('ignores labelled ConfigMaps of other namespaces', async () => {
    createWebApp('shop', {});
    await waitForStatus('shop', 1);

    const foreign = server.create(CONFIGMAPS, { metadata: { name: 'elsewhere', namespace: 'other-team', labels: { app: 'shop' } } });
    expect(routesOf(t.controller, { gvr: CONFIGMAPS, ...foreign })).toEqual([]);
    // A change that must reconcile proves the controller saw the state after the foreign ConfigMap.
    server.patch(WEBAPP.gvr, NS, 'shop', { spec: { message: 'bump' } });

    const status = await waitForStatus('shop', 1);
    expect(status.observedGeneration).toBe(2);
  });

  it('follows a spec change: the ConfigMap data is updated and observedGeneration follows the generation', async () => {
    createWebApp('shop', { message: 'hello', replicas: 1 });
    await waitForStatus('shop', 1);

    server.patch(WEBAPP.gvr, NS, 'shop', { spec: { message: 'sale', replicas: 3 } });

    await t.waitFor(() => statusOf('shop')?.observedGeneration === 2);
    expect(configMap('shop-config')?.['data']).toEqual({ message: 'sale', replicas: '3' });
  });

  it('reports an invalid spec as Ready=False and does not retry it', async () => {
    // The CRD's schema refuses it, as kube-apiserver does...
    expect(() => createWebApp('shop', { replicas: -1 })).toThrow(/spec\.replicas in body should be greater than or equal to 0/);
    // ...so it is an object stored before the schema said so (a schema tightened later), which the server keeps.
    const crds = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };
    const crdName = `${WEBAPP.gvr.resource}.${WEBAPP.gvr.group}`;
    const strict = server.get(crds, '', crdName)!;
    type Replicas = { minimum?: number };
    type Crd = KubeObject & {
      spec: { versions: { schema: { openAPIV3Schema: { properties: { spec: { properties: { replicas: Replicas } } } } } }[] };
    };
    const lax = structuredClone(strict) as Crd;
    delete lax.spec.versions[0]!.schema.openAPIV3Schema.properties.spec.properties.replicas.minimum;
    server.update(crds, lax);
    createWebApp('shop', { replicas: -1 });
    server.update(crds, {
      ...strict,
      metadata: { ...strict.metadata, resourceVersion: server.get(crds, '', crdName)!.metadata.resourceVersion! },
    });

    await t.waitFor(() => statusOf('shop')?.conditions?.[0]?.status === 'False');

    expect(statusOf('shop')?.conditions?.[0]).toMatchObject({ reason: 'InvalidSpec', observedGeneration: 1 });
    expect(statusOf('shop')?.conditions?.[0]?.message).toContain('spec.replicas');
    expect(configMap('shop-config')).toBeUndefined();
    await t.waitFor(() => observer.outcomes().includes('no_requeue'));
    expect(observer.outcomes()).not.toContain('error');
    expect(results.map((r) => r.result.outcome)).toEqual(['invalid']);
  });

  it('drops the instance and its child watches when the instance is deleted', async () => {
    createWebApp('shop', {});
    await waitForStatus('shop', 1);
    expect(t.watchCoordinator.instanceWatchCount()).toBe(1);
    expect(t.watchManager.activeWatchCount()).toBe(2); // webapps + configmaps

    server.delete(WEBAPP.gvr, NS, 'shop');

    await t.waitFor(() => t.watchCoordinator.instanceWatchCount() === 0);
    // The ConfigMap informer stays: the registration caches ConfigMaps (webAppRegisterOptions), not only the watches.
    expect(t.watchManager.activeWatchCount()).toBe(2);
    // The watches go as soon as the delete arrives; the handler's last pass, which sees the instance gone, follows.
    await t.waitFor(() => results.at(-1)?.result.outcome === 'deleted');
    expect(results.at(-1)).toEqual({ instance: `${NS}/shop`, result: { outcome: 'deleted' } });
  });
});
