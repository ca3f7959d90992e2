import { describe, expect, it } from '@jest/globals';
import { ApiException, ApiextensionsV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { GROUP } from './fixtures.js';
import type { Json } from '@protean/envtest';
import type { SuiteContext } from './SuiteContext.js';

/** The typed client-node APIs, as applications call the server. */
export function clientNodeTests(ctx: SuiteContext): void {
  describe('through @kubernetes/client-node', () => {
    it('creates, reads, lists by label and deletes ConfigMaps with CoreV1Api', async () => {
      const ns = await ctx.namespace('corev1');
      const core = ctx.kc.makeApiClient(CoreV1Api);
      const created = await core.createNamespacedConfigMap({
        namespace: ns,
        body: { metadata: { name: 'a', labels: { app: 'x' } }, data: { k: 'v' } },
      });
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'b' } } });
      expect(created.metadata?.resourceVersion).toMatch(/^\d+$/);
      expect((await core.readNamespacedConfigMap({ namespace: ns, name: 'a' })).data).toEqual({ k: 'v' });
      const list = await core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'app=x' });
      expect(list.items.map((i) => i.metadata?.name)).toEqual(['a']);
      const del = await core.deleteNamespacedConfigMap({ namespace: ns, name: 'a' });
      expect(del).toMatchObject({ kind: 'Status', status: 'Success' });
      const err = await core.readNamespacedConfigMap({ namespace: ns, name: 'a' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiException);
      expect((err as ApiException<unknown>).code).toBe(404);
    });

    it('creates, patches and reads custom resources with CustomObjectsApi, and sees the CRD Established with ApiextensionsV1Api', async () => {
      const ns = await ctx.namespace('customobjects');
      const crd = await ctx.kc.makeApiClient(ApiextensionsV1Api).readCustomResourceDefinition({ name: `widgets.${GROUP}` });
      expect(crd.status?.conditions).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'Established', status: 'True' })]));
      const objects = ctx.kc.makeApiClient(CustomObjectsApi);
      const params = { group: GROUP, version: 'v1', namespace: ns, plural: 'widgets' };
      await objects.createNamespacedCustomObject({
        ...params,
        body: { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } },
      });
      // client-node 1.x sends PATCH bodies as application/json-patch+json.
      const patched = (await objects.patchNamespacedCustomObject({
        ...params,
        name: 'w',
        body: [{ op: 'replace', path: '/spec/size', value: 2 }],
      })) as Json;
      expect(patched).toMatchObject({ spec: { size: 2 }, metadata: { generation: 2 } });
      const listed = (await objects.listNamespacedCustomObject(params)) as Json;
      expect(listed).toMatchObject({ kind: 'WidgetList', items: [{ kind: 'Widget', spec: { size: 2 } }] });
      const dup = await objects
        .createNamespacedCustomObject({ ...params, body: { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'w' } } })
        .catch((e: unknown) => e);
      expect((dup as ApiException<unknown>).code).toBe(409);
    });
  });
}
