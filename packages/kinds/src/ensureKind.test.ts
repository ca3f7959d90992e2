import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeClient } from '@protean/client';
import { type KubeHttpRequest, type KubeHttpResponse, type KubeTransport } from '@protean/client/internal';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import Type from 'typebox';
import { defineKind } from './defineKind.js';
import { ensureKind } from './ensureKind.js';
import { KindNamesConflictError, KindNotEstablishedError, KindRejectedError } from './ensureKindErrors.js';

const Cache = defineKind({
  group: 'kinds.protean.dev',
  kind: 'Cache',
  versions: [{ name: 'v1', spec: Type.Object({ size: Type.Integer() }), status: Type.Object({ ready: Type.Optional(Type.Boolean()) }) }],
});

describe('ensureKind on the in-memory API server', () => {
  let server: InMemoryApiServer;
  let client: KubeClient;
  beforeAll(async () => {
    server = await InMemoryApiServer.start();
    client = new KubeClient({ kubeConfig: server.kubeConfig() });
  });
  afterAll(async () => {
    client.close();
    await server.stop();
  });

  it('installs the kind and resolves with its GVR once it is served; an object of it can be written at once', async () => {
    const gvr = await ensureKind(client, Cache);
    expect(gvr).toEqual({ group: 'kinds.protean.dev', version: 'v1', resource: 'caches' });
    await client.create(gvr, { ...Cache.typeMeta(), metadata: { name: 'c', namespace: 'default' }, spec: { size: 1 } });
    // Again: an apply of the same CRD, no change.
    expect(await ensureKind(client, Cache)).toEqual(gvr);
  });

  it("enforces the declaration's CEL rules, transition rules included, as kube-apiserver does", async () => {
    const Quota = defineKind({
      group: 'kinds.protean.dev',
      kind: 'Quota',
      versions: [
        {
          name: 'v1',
          spec: Type.Object(
            {
              min: Type.Integer(),
              max: Type.Integer(),
              tier: Type.String({ 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'tier is immutable' }] }),
            },
            { 'x-kubernetes-validations': [{ rule: 'self.min <= self.max', message: 'min must not exceed max' }] },
          ),
        },
      ],
    });
    const gvr = await ensureKind(client, Quota);
    const quota = (spec: Record<string, unknown>, resourceVersion?: string) => ({
      ...Quota.typeMeta(),
      metadata: { name: 'q', namespace: 'default', ...(resourceVersion === undefined ? {} : { resourceVersion }) },
      spec,
    });
    await expect(client.create(gvr, quota({ min: 3, max: 2, tier: 'a' }))).rejects.toThrow(
      'Quota.kinds.protean.dev "q" is invalid: spec: Invalid value: min must not exceed max',
    );
    const created = await client.create(gvr, quota({ min: 1, max: 2, tier: 'a' }));
    await expect(client.update(gvr, quota({ min: 1, max: 2, tier: 'b' }, created.metadata.resourceVersion))).rejects.toThrow(
      'spec.tier: Invalid value: "b": tier is immutable',
    );
  });
});

describe('ensureKind when the server does not establish it', () => {
  /** Answers the apply, then a CRD whose conditions are `conditions`, forever. */
  function scripted(conditions: unknown[], applyStatus = 200): { transport: KubeTransport; sent: KubeHttpRequest[] } {
    const sent: KubeHttpRequest[] = [];
    const crd = { ...Cache.crd(), status: { conditions } };
    return {
      sent,
      transport: {
        send: (request): Promise<KubeHttpResponse> => {
          sent.push(request);
          if (request.method === 'PATCH' && applyStatus !== 200) {
            return Promise.resolve({
              status: applyStatus,
              headers: {},
              body: JSON.stringify({
                kind: 'Status',
                status: 'Failure',
                code: applyStatus,
                reason: 'Invalid',
                message:
                  'spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields',
              }),
            });
          }
          return Promise.resolve({ status: 200, headers: {}, body: JSON.stringify(crd) });
        },
      },
    };
  }

  it('gives up after its bound with KindNotEstablishedError quoting the conditions it saw', async () => {
    const { transport, sent } = scripted([
      { type: 'NamesAccepted', status: 'True' },
      { type: 'Established', status: 'False', reason: 'Installing' },
    ]);
    const sentCount = (): number => sent.length;
    const client = new KubeClient({ transport });
    const err = await ensureKind(client, Cache, { timeoutMs: 300, pollMs: 20 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KindNotEstablishedError);
    expect(err).toMatchObject({ crd: 'caches.kinds.protean.dev', timeoutMs: 300 });
    expect((err as Error).message).toBe(
      'CRD caches.kinds.protean.dev was not established and served within 300 ms; its conditions: NamesAccepted=True, Established=False (Installing)',
    );
    // Bounded: once it gave up it looks no more.
    const looked = sentCount();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sentCount()).toBe(looked);
  });

  it('stops at once with KindNamesConflictError when the names are refused, and KindRejectedError when the CRD is', async () => {
    const conflict = scripted([
      { type: 'NamesAccepted', status: 'False', reason: 'ListKindConflict', message: '"CacheList" is already in use' },
    ]);
    const err = await ensureKind(new KubeClient({ transport: conflict.transport }), Cache, { timeoutMs: 60_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KindNamesConflictError);
    expect((err as Error).message).toBe(
      'CRD caches.kinds.protean.dev: its names were not accepted (ListKindConflict): "CacheList" is already in use',
    );
    // One apply and one look at the CRD (the other requests are the client's discovery of the CRD resource's scope).
    expect(conflict.sent.filter((r) => r.path.includes('/customresourcedefinitions/caches.')).map((r) => r.method)).toEqual([
      'PATCH',
      'GET',
    ]);

    const rejected = scripted([], 422);
    const refused = await ensureKind(new KubeClient({ transport: rejected.transport }), Cache).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(KindRejectedError);
    expect((refused as Error).message).toMatch(
      /^the API server refused CRD caches\.kinds\.protean\.dev: .*must not be empty for specified object fields/,
    );
  });
});
