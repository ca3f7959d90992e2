import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeClient } from '@protean/client';
import type { CachedObject, GroupVersionResource } from '@protean/core';
import { startKubeApiServer, type KubeApiServer } from '@protean/envtest';
import { createTestController, Deferred, type TestController } from '@protean/testing';
import { KubernetesInformerSource } from '@protean/watch-manager';

const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const NS = 'default';

let api: KubeApiServer;
let client: KubeClient;

beforeAll(async () => {
  api = await startKubeApiServer();
  client = new KubeClient({ kubeConfig: api.kubeConfig, fieldManager: 'object-cache-test' });
});

afterAll(async () => {
  client?.close();
  await api?.stop();
});

describe('the object cache on a real kube-apiserver', () => {
  for (const streamingList of ['auto', 'never'] as const) {
    it(`caches objects without managedFields and the last-applied annotation, and reads a write back at once (streamingList ${streamingList})`, async () => {
      const name = `cached-${streamingList}`;
      const applied = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data: { k: 'old' } };
      await client.apply(configmaps, {
        ...applied,
        metadata: { ...applied.metadata, annotations: { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify(applied) } },
      });
      await client.apply(configmaps, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `trigger-${streamingList}`, namespace: NS },
      });
      const t: TestController<KubernetesInformerSource> = createTestController({
        source: new KubernetesInformerSource({ kubeConfig: api.kubeConfig, streamingList }),
        waitForTimeoutMs: 20_000,
      });
      const seen = new Deferred<{ before?: CachedObject; written: string; after?: CachedObject }>();
      try {
        await t.start();
        await t.register(
          configmaps,
          async (req, ctx) => {
            if (req.name !== `trigger-${streamingList}`) return;
            const before = await ctx.get(configmaps, NS, name);
            const written = await client.patch(configmaps, { namespace: NS, name }, { data: { k: 'new' } }, { signal: ctx.signal });
            const after = await ctx.get(configmaps, NS, name);
            seen.resolve({
              ...(before === undefined ? {} : { before }),
              written: written.metadata.resourceVersion!,
              ...(after === undefined ? {} : { after }),
            });
          },
          { cache: [configmaps] },
        );
        const { before, written, after } = await seen.promise;

        expect(before?.['data']).toEqual({ k: 'old' });
        expect(before?.metadata).not.toHaveProperty('managedFields');
        expect(before?.metadata.annotations ?? {}).not.toHaveProperty(['kubectl.kubernetes.io/last-applied-configuration']);
        expect(after?.['data']).toEqual({ k: 'new' });
        expect(BigInt(after!.metadata.resourceVersion!) >= BigInt(written)).toBe(true);
      } finally {
        await t.dispose();
      }
    }, 60_000);
  }
});
