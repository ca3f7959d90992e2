import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { GroupVersionResource } from '@protean/core';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { addFinalizer, hasFinalizer, isBeingDeleted, removeFinalizer } from './finalizers.js';
import { KubeClient } from './KubeClient.js';
import { KubeConfigTransport } from './KubeConfigTransport.js';
import type { KubeObject } from './KubeObject.js';
import type { KubeHttpRequest, KubeHttpResponse, KubeTransport } from './KubeTransport.js';
import { reconcileFinalizer } from './reconcileFinalizer.js';

const widgets: GroupVersionResource = { group: 'example.com', version: 'v1', resource: 'widgets' };
const FINALIZER = 'example.com/cleanup';

/** Sends through a real transport, running `before` (once) ahead of the first PATCH: a concurrent writer. */
class InterleavingTransport implements KubeTransport {
  before: (() => void) | undefined;
  readonly methods: string[] = [];
  constructor(private readonly inner: KubeTransport) {}
  send(request: KubeHttpRequest): Promise<KubeHttpResponse> {
    this.methods.push(request.method);
    if (request.method === 'PATCH' && this.before !== undefined) {
      const run = this.before;
      this.before = undefined;
      run();
    }
    return this.inner.send(request);
  }
}

describe('finalizers', () => {
  let server: InMemoryApiServer;
  let inner: KubeConfigTransport;
  let transport: InterleavingTransport;
  let client: KubeClient;
  let n = 0;

  beforeAll(async () => {
    server = await InMemoryApiServer.start();
    server.registerResource({ ...widgets, kind: 'Widget', namespaced: true, hasStatusSubresource: true });
    inner = new KubeConfigTransport(server.kubeConfig());
    transport = new InterleavingTransport(inner);
    client = new KubeClient({ transport, fieldManager: 'widget-controller' });
  });

  afterAll(async () => {
    inner.close();
    await server.stop();
  });

  const widget = (finalizers?: string[]): KubeObject => {
    const name = `w${++n}`;
    return server.create(widgets, {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name, namespace: 'default', ...(finalizers ? { finalizers } : {}) },
      spec: {},
    });
  };

  it('adds a finalizer once and keeps the others', async () => {
    const w = widget(['other.io/keep']);
    const stored = await addFinalizer(client, widgets, w, FINALIZER);
    expect(stored.metadata?.finalizers).toEqual(['other.io/keep', FINALIZER]);
    transport.methods.length = 0;
    const again = await addFinalizer(client, widgets, stored, FINALIZER);
    expect(again.metadata?.resourceVersion).toBe(stored.metadata?.resourceVersion);
    expect(transport.methods).toEqual([]);
  });

  it('re-reads and recomputes the list when another writer changed the object meanwhile, losing neither change', async () => {
    const w = widget();
    const name = w.metadata!.name!;
    transport.before = () => server.patch(widgets, 'default', name, { metadata: { finalizers: ['other.io/late'] } });
    const stored = await addFinalizer(client, widgets, w, FINALIZER);
    expect(stored.metadata?.finalizers).toEqual(['other.io/late', FINALIZER]);
    expect(server.get(widgets, 'default', name)?.metadata.finalizers).toEqual(['other.io/late', FINALIZER]);
  });

  it('reads the object first when given only its key', async () => {
    const w = widget();
    const stored = await addFinalizer(client, widgets, { namespace: 'default', name: w.metadata!.name! }, FINALIZER);
    expect(hasFinalizer(stored, FINALIZER)).toBe(true);
  });

  it('removes a finalizer; removing the last one of an object being deleted lets the deletion complete', async () => {
    const w = widget([FINALIZER, 'other.io/keep']);
    const name = w.metadata!.name!;
    const kept = await removeFinalizer(client, widgets, w, FINALIZER);
    expect(kept?.metadata?.finalizers).toEqual(['other.io/keep']);
    const deleting = server.delete(widgets, 'default', name)!;
    expect(isBeingDeleted(deleting)).toBe(true);
    expect(await removeFinalizer(client, widgets, deleting, 'other.io/keep')).toBeUndefined();
    expect(server.get(widgets, 'default', name)).toBeUndefined();
    expect(await removeFinalizer(client, widgets, deleting, 'other.io/keep')).toBeUndefined();
  });
});

describe('reconcileFinalizer', () => {
  let server: InMemoryApiServer;
  let client: KubeClient;

  beforeAll(async () => {
    server = await InMemoryApiServer.start();
    server.registerResource({ ...widgets, kind: 'Widget', namespaced: true, hasStatusSubresource: true });
    client = new KubeClient({ kubeConfig: server.kubeConfig(), fieldManager: 'widget-controller' });
  });

  afterAll(async () => {
    client.close();
    await server.stop();
  });

  it('adds the finalizer to a live object, then on deletion runs the clean-up once and lets the object go', async () => {
    server.create(widgets, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec: {} });
    const cleaned: string[] = [];
    const cleanup = async (o: KubeObject): Promise<void> => {
      cleaned.push(o.metadata!.name!);
    };
    const live = await client.get(widgets, { namespace: 'default', name: 'w' });
    const step = await reconcileFinalizer(client, widgets, live, { finalizer: FINALIZER, cleanup });
    expect(step.deleting).toBe(false);
    expect(step.deleting ? undefined : step.object.metadata?.finalizers).toEqual([FINALIZER]);
    expect(cleaned).toEqual([]);

    await client.delete(widgets, { namespace: 'default', name: 'w' });
    const deleting = await client.get(widgets, { namespace: 'default', name: 'w' });
    expect(await reconcileFinalizer(client, widgets, deleting, { finalizer: FINALIZER, cleanup })).toEqual({ deleting: true });
    expect(cleaned).toEqual(['w']);
    expect(server.get(widgets, 'default', 'w')).toBeUndefined();
  });

  it('keeps the finalizer when the clean-up fails, so the next pass tries again', async () => {
    server.create(widgets, {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'x', namespace: 'default', finalizers: [FINALIZER] },
      spec: {},
    });
    server.delete(widgets, 'default', 'x');
    const deleting = await client.get(widgets, { namespace: 'default', name: 'x' });
    const failing = (): Promise<void> => Promise.reject(new Error('bucket still busy'));
    await expect(reconcileFinalizer(client, widgets, deleting, { finalizer: FINALIZER, cleanup: failing })).rejects.toThrow(
      'bucket still busy',
    );
    expect(server.get(widgets, 'default', 'x')?.metadata.finalizers).toEqual([FINALIZER]);
  });

  it('runs no clean-up for an object being deleted without its finalizer', async () => {
    server.create(widgets, {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'y', namespace: 'default', finalizers: ['other.io/keep'] },
      spec: {},
    });
    server.delete(widgets, 'default', 'y');
    const deleting = await client.get(widgets, { namespace: 'default', name: 'y' });
    let ran = false;
    const step = await reconcileFinalizer(client, widgets, deleting, { finalizer: FINALIZER, cleanup: async () => void (ran = true) });
    expect(step).toEqual({ deleting: true });
    expect(ran).toBe(false);
  });
});
