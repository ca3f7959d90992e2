import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeClient } from '@protean/client';
import { coordinatorModule } from '@protean/coordinator';
import { coreModule, DynamicController, silentLogger, type GroupVersionResource } from '@protean/core';
import { waitFor } from '@protean/core/testing';
import { startKubeApiServer, type KubeApiServer } from '@protean/envtest';
import { defineKind, ensureKind, KindNamesConflictError, KindRejectedError, type KindObject } from '@protean/kinds';
import { queueModule } from '@protean/queue';
import { watchManagerModule } from '@protean/watch-manager';
import { Container } from 'inversify';
import Type from 'typebox';

/*
 * Kinds created at run time from a declaration (the kro flow), on kube-apiserver: the controller registers a kind
 * ensureKind installed, reconciles its instances, and goes on reconciling when a second version with another
 * schema is applied the same way.
 */

const GROUP = 'runtime.protean.dev';
const spec1 = Type.Object({ message: Type.String({ minLength: 1 }) });
const Greeting = defineKind({
  group: GROUP,
  kind: 'Greeting',
  versions: [{ name: 'v1', spec: spec1, status: Type.Object({ echoed: Type.Optional(Type.String()) }) }],
});
// The next version of the kind: v2 adds a field with a default and becomes the storage version; v1 stays served.
const GreetingV2 = defineKind({
  group: GROUP,
  kind: 'Greeting',
  versions: [
    { name: 'v1', spec: spec1, status: Type.Object({ echoed: Type.Optional(Type.String()) }) },
    {
      name: 'v2',
      spec: Type.Object({ message: Type.String({ minLength: 1 }), loud: Type.Optional(Type.Boolean({ default: false })) }),
      status: Type.Object({ echoed: Type.Optional(Type.String()) }),
    },
  ],
});

describe('kinds created at run time from a declaration', () => {
  let api: KubeApiServer;
  let client: KubeClient;
  const stop = new AbortController();
  let running: Promise<void> | undefined;

  beforeAll(async () => {
    api = await startKubeApiServer();
    client = new KubeClient({ kubeConfig: api.kubeConfig, fieldManager: 'greeter' });
  }, 120_000);
  afterAll(async () => {
    stop.abort();
    await running?.catch(() => undefined);
    client?.close();
    await api?.stop();
  });

  it('ensureKind installs the kind, the controller registers it and reconciles; a second version applied the same way keeps it reconciling', async () => {
    const v1 = await ensureKind(client, Greeting, { timeoutMs: 30_000 });
    expect(v1).toEqual({ group: GROUP, version: 'v1', resource: 'greetings' });

    const container = new Container();
    container.load(
      coreModule({ resyncPeriodMs: 0 }, silentLogger()),
      queueModule(),
      watchManagerModule({ kubeConfig: api.kubeConfig }),
      coordinatorModule(),
    );
    const controller = container.get(DynamicController);
    running = controller.start(stop.signal);
    const handle = (gvr: GroupVersionResource) => async (req: { namespace: string; name: string }, ctx: { signal: AbortSignal }) => {
      const obj = await client.get<KindObject<typeof GreetingV2>>(gvr, req, { signal: ctx.signal });
      const echoed = `${obj.spec.loud === true ? obj.spec.message.toUpperCase() : obj.spec.message} (${gvr.version})`;
      if (obj.status?.echoed !== echoed) await client.patchStatus(gvr, req, { echoed }, { signal: ctx.signal });
    };
    await controller.register(v1, handle(v1));
    await client.create(v1, { ...Greeting.typeMeta(), metadata: { name: 'hello', namespace: 'default' }, spec: { message: 'hello' } });
    const echoedOf = async (gvr: GroupVersionResource, name: string): Promise<string | undefined> =>
      (await client.get<KindObject<typeof GreetingV2>>(gvr, { namespace: 'default', name })).status?.echoed;
    await waitFor(async () => (await echoedOf(v1, 'hello')) === 'hello (v1)', {
      timeoutMs: 20_000,
      message: 'hello reconciled through v1',
    });

    // The second version: applied by ensureKind, registered, and the same instance reconciled through it.
    const v2 = await ensureKind(client, GreetingV2, { timeoutMs: 30_000 });
    expect(v2).toEqual({ group: GROUP, version: 'v2', resource: 'greetings' });
    await controller.deregister(v1);
    await controller.register(v2, handle(v2));
    await waitFor(async () => (await echoedOf(v2, 'hello')) === 'hello (v2)', {
      timeoutMs: 20_000,
      message: 'hello reconciled through v2',
    });
    // A new instance written with v2's new field (defaulted where left out) is reconciled too.
    await client.create(v2, {
      ...GreetingV2.typeMeta(),
      metadata: { name: 'loud', namespace: 'default' },
      spec: { message: 'hey', loud: true },
    });
    await waitFor(async () => (await echoedOf(v2, 'loud')) === 'HEY (v2)', { timeoutMs: 20_000, message: 'loud reconciled through v2' });
    const defaulted = await client.get<KindObject<typeof GreetingV2>>(v2, { namespace: 'default', name: 'hello' });
    expect(defaulted.spec.loud).toBe(false);
  }, 120_000);

  it('ends bad declarations with named errors: a schema kube-apiserver refuses, names that clash with another kind', async () => {
    // A CRD the server refuses (a field without a type, which defineKind itself would never write).
    const broken = {
      ...Greeting,
      crdName: `brokens.${GROUP}`,
      crd: () => ({
        ...Greeting.crd(),
        metadata: { name: `brokens.${GROUP}` },
        spec: {
          ...Greeting.crd().spec,
          names: { plural: 'brokens', singular: 'broken', kind: 'Broken', listKind: 'BrokenList' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', properties: { spec: { properties: { x: { type: 'string' } } } } } },
            },
          ],
        },
      }),
    };
    const rejected = await ensureKind(client, broken as never, { timeoutMs: 10_000 }).catch((e: unknown) => e);
    expect(rejected).toBeInstanceOf(KindRejectedError);
    expect((rejected as Error).message).toMatch(/the API server refused CRD brokens\.runtime\.protean\.dev: .*type: Required value/);

    // Another kind of the group whose singular is Greeting's: NamesAccepted=False.
    const clash = defineKind({ group: GROUP, kind: 'Salutation', singular: 'greeting', versions: [{ name: 'v1', spec: Type.Object({}) }] });
    const conflict = await ensureKind(client, clash, { timeoutMs: 20_000 }).catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(KindNamesConflictError);
    expect((conflict as Error).message).toMatch(
      /CRD salutations\.runtime\.protean\.dev: its names were not accepted \(SingularConflict\): .*greeting/,
    );
    // Told as soon as the server decided (the unit test counts one look at the CRD), not at the bound: no wait is timed here.
  }, 60_000);
});
