import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isNotFound, StaleReadError, type GroupVersionResource, type Validity } from '@protean/core';
import { bindPassReads, fenceSignal, UNSERVED_RESOURCE_HINT } from '@protean/core/internal';
import { startKubeApiServer, waitUntil, type KubeApiServer } from '@protean/envtest';
import { ApplyConflictError } from './ApplyConflictError.js';
import { setStatusCondition, type Condition } from './conditions.js';
import { EVENTS, EventRecorder } from './EventRecorder.js';
import type { KubeApiError } from './KubeApiError.js';
import { warningsOf } from './apiWarnings.js';
import { KubeClient } from './KubeClient.js';
import { KubeConfigTransport } from './KubeConfigTransport.js';
import type { KubeHttpRequest, KubeTransport } from './KubeTransport.js';
import type { KubeObject } from './KubeObject.js';
import { MissingNamespaceError } from './MissingNamespaceError.js';
import { reconcileFinalizer } from './reconcileFinalizer.js';
import { controllerOf, setControllerReference } from './setControllerReference.js';

const GROUP = 'client.protean.dev';
const backups: GroupVersionResource = { group: GROUP, version: 'v1', resource: 'backups' };
const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const secrets: GroupVersionResource = { group: '', version: 'v1', resource: 'secrets' };
const crds: GroupVersionResource = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };

interface Backup extends KubeObject {
  spec?: { cron?: string };
  status?: { conditions?: Condition[] };
}

const backup = (name: string): Backup => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'Backup',
  metadata: { name, namespace: 'default' },
  spec: { cron: '@daily' },
});

describe('KubeClient against a real kube-apiserver', () => {
  let server: KubeApiServer;
  let client: KubeClient;
  let other: KubeClient;

  beforeAll(async () => {
    server = await startKubeApiServer();
    client = new KubeClient({ kubeConfig: server.kubeConfig, fieldManager: 'backup-controller' });
    other = new KubeClient({ kubeConfig: server.kubeConfig, fieldManager: 'someone-else' });
    await client.create(crds, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `backups.${GROUP}` },
      spec: {
        group: GROUP,
        scope: 'Namespaced',
        names: { plural: 'backups', singular: 'backup', kind: 'Backup', listKind: 'BackupList' },
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
      async () =>
        await client.list(backups).then(
          () => true,
          () => false,
        ),
      'backups to be served',
      30_000,
    );
  });

  afterAll(async () => {
    client?.close();
    other?.close();
    await server?.stop();
  });

  it('validates a dry-run write on the server and stores nothing (dryRun: true), strictly with fieldValidation: Strict', async () => {
    const dry = await client.create(
      configmaps,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry', namespace: 'default' } },
      { dryRun: true },
    );
    expect(dry.metadata.uid).toEqual(expect.any(String)); // the object the server would have stored
    expect(await client.find(configmaps, { namespace: 'default', name: 'dry' })).toBeUndefined();
    const invalid = await client
      .create(
        configmaps,
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry', namespace: 'default' }, data: { 'no/slash': 'x' } },
        { dryRun: true },
      )
      .catch((e: unknown) => e);
    expect(invalid).toMatchObject({ status: 422 });
    // An unknown field is dropped with a warning by default, refused with fieldValidation: 'Strict'.
    const typo = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry', namespace: 'default' }, dta: { a: 'b' } };
    expect(await client.create(configmaps, typo, { dryRun: true })).not.toHaveProperty('dta');
    const strict = await client.create(configmaps, typo, { dryRun: true, fieldValidation: 'Strict' }).catch((e: unknown) => e);
    expect(strict).toMatchObject({ status: 400 });
    expect((strict as Error).message).toContain('unknown field "dta"');
  });

  it('creates a child by server-side apply with a controller reference the real server accepts', async () => {
    const owner = await client.create(backups, backup('nightly'));
    const child = setControllerReference(owner, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'nightly-schedule', namespace: 'default' },
      data: { cron: '@daily' },
    });
    const applied = await client.apply(configmaps, child);
    expect(controllerOf(applied)).toEqual({
      apiVersion: `${GROUP}/v1`,
      kind: 'Backup',
      name: 'nightly',
      uid: owner.metadata?.uid,
      controller: true,
      blockOwnerDeletion: true,
    });
    expect(applied.metadata?.managedFields?.map((m) => [m.manager, m.operation])).toEqual([['backup-controller', 'Apply']]);
  });

  it('surfaces an apply conflict as an ApplyConflictError naming the field and its manager, and takes the field with force', async () => {
    const cm = (value: string): KubeObject & { data: Record<string, string> } => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'contested', namespace: 'default' },
      data: { owner: value },
    });
    await other.apply(configmaps, cm('them'));
    const err = await client.apply(configmaps, cm('us')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplyConflictError);
    expect((err as ApplyConflictError).conflicts).toEqual([
      { field: '.data.owner', manager: 'someone-else', detail: 'conflict with "someone-else"' },
    ]);
    expect((err as Error).message).toContain('conflicts with other managers on .data.owner (someone-else)');
    const forced = await client.apply(configmaps, cm('us'), { force: true });
    expect(forced.data).toEqual({ owner: 'us' });
  });

  it('writes a Ready condition through the status subresource without touching the generation', async () => {
    const created = await client.create(backups, backup('weekly'));
    const conditions: Condition[] = [];
    setStatusCondition(conditions, {
      type: 'Ready',
      status: 'True',
      reason: 'Scheduled',
      observedGeneration: created.metadata?.generation ?? 0,
    });
    const patched = await client.patchStatus<Backup>(backups, { namespace: 'default', name: 'weekly' }, { conditions });
    expect(patched.status?.conditions).toEqual(conditions);
    expect(patched.metadata?.generation).toBe(created.metadata?.generation);
  });

  it('runs the clean-up of a deleted instance once, removes the finalizer and lets the server delete it', async () => {
    await client.create(backups, backup('doomed'));
    const cleaned: string[] = [];
    const cleanup = async (b: Backup): Promise<void> => void cleaned.push(b.metadata?.name ?? '');
    const live = await client.get<Backup>(backups, { namespace: 'default', name: 'doomed' });
    const step = await reconcileFinalizer(client, backups, live, { finalizer: `${GROUP}/cleanup`, cleanup });
    expect(step.deleting).toBe(false);
    const kept = await client.delete(backups, { namespace: 'default', name: 'doomed' });
    expect(kept?.metadata?.deletionTimestamp).toEqual(expect.any(String));
    const deleting = await client.get<Backup>(backups, { namespace: 'default', name: 'doomed' });
    expect(await reconcileFinalizer(client, backups, deleting, { finalizer: `${GROUP}/cleanup`, cleanup })).toEqual({ deleting: true });
    expect(cleaned).toEqual(['doomed']);
    const gone = await client.get(backups, { namespace: 'default', name: 'doomed' }).catch((e: unknown) => e);
    expect(isNotFound(gone)).toBe(true);
  });

  it("folds a Secret's stringData into data", async () => {
    const applied = await client.apply(secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'token', namespace: 'default' },
      stringData: { token: 'xyz' },
    });
    expect((applied as { data?: Record<string, string> }).data).toEqual({ token: Buffer.from('xyz').toString('base64') });
  });

  it('records a burst of 1,000 identical Events for one object as one Event with a series the real server accepts', async () => {
    const owner = await client.create(backups, backup('noisy'));
    const recorder = new EventRecorder({ client, reportingController: `${GROUP}/backup-controller` });
    for (let i = 0; i < 1000; i++)
      recorder.event(owner, { type: 'Warning', reason: 'BucketBusy', action: 'Backup', note: 'the bucket is busy' });
    await recorder.flush();
    recorder.stop();
    const events = (await client.list(EVENTS, { namespace: 'default' })).filter(
      (e) => (e as { regarding?: { uid?: string } }).regarding?.uid === owner.metadata?.uid,
    );
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ reason: 'BucketBusy', action: 'Backup', type: 'Warning', series: { count: 1000 } });
  });

  it('names the missing namespace of a namespaced object before sending, and hints at the plural for an unserved resource', async () => {
    const err = await client.create(backups, { ...backup('nowhere'), metadata: { name: 'nowhere' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MissingNamespaceError);
    expect((err as Error).message).toBe(
      `create of backups.${GROUP} "nowhere" names no namespace, but backups.${GROUP} is a namespaced resource: set metadata.namespace on the object`,
    );
    const unserved = await client.get({ ...backups, resource: 'backup' }, { namespace: 'default', name: 'x' }).catch((e: unknown) => e);
    expect((unserved as Error).message).toMatch(/^GET backup\.client\.protean\.dev default\/x: 404/);
    expect((unserved as Error).message).toContain(`(${UNSERVED_RESOURCE_HINT})`);
    const missing = await client.get(backups, { namespace: 'default', name: 'absent' }).catch((e: unknown) => e);
    expect((missing as Error).message).not.toContain(UNSERVED_RESOURCE_HINT);
  });
  it('a write checked valid whose bytes leave after a freeze past the lease is refused by kube-apiserver (409) when it carries the version the pass read', async () => {
    await client.create(configmaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'fenced', namespace: 'default' },
      data: { value: '1' },
    });
    const run = async (
      precondition: boolean,
      how: 'patch' | 'apply' = 'patch',
    ): Promise<{ outcome: unknown; stored: Record<string, string> | undefined }> => {
      let valid = true;
      const validity: Validity = { isValid: () => valid, description: 'shard member lease default/r0' };
      let frozen!: () => void;
      const freeze = new Promise<void>((resolve) => (frozen = resolve));
      let thaw!: () => void;
      const thawed = new Promise<void>((resolve) => (thaw = resolve));
      const real = new KubeConfigTransport(server.kubeConfig);
      // The transport hook: the last client-side check passes, then the process "freezes" before the bytes leave.
      const transport: KubeTransport = {
        async send(request: KubeHttpRequest) {
          if (request.method !== 'GET') {
            request.beforeSend?.();
            frozen();
            await thawed;
          }
          return real.send({ ...request, beforeSend: undefined });
        },
      };
      const replica = new KubeClient({ transport, fieldManager: 'frozen-replica' });
      const signal = fenceSignal(new AbortController(), validity);
      bindPassReads(signal);
      await replica.get(configmaps, { namespace: 'default', name: 'fenced' }, { signal });
      const data = { value: 'stale', writer: 'frozen-replica' };
      const write = (
        how === 'patch'
          ? replica.patch(configmaps, { namespace: 'default', name: 'fenced' }, { data }, { signal, precondition })
          : replica.apply(
              configmaps,
              { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fenced', namespace: 'default' }, data },
              { signal, precondition, force: true },
            )
      ).then(
        () => 'sent',
        (e: unknown) => e,
      );
      await freeze;
      // While it is frozen, its lease runs out and the successor writes a newer value.
      valid = false;
      await other.patch(configmaps, { namespace: 'default', name: 'fenced' }, { data: { value: `newer ${how}`, writer: 'successor' } });
      thaw();
      const outcome = await write;
      replica.close();
      const stored = (
        await client.get<KubeObject & { data?: Record<string, string> }>(configmaps, { namespace: 'default', name: 'fenced' })
      ).data;
      return { outcome, stored };
    };
    const fenced = await run(true);
    expect(fenced.outcome).toBeInstanceOf(StaleReadError);
    expect(((fenced.outcome as Error).cause as KubeApiError).status).toBe(409);
    expect(fenced.stored).toEqual({ value: 'newer patch', writer: 'successor' });
    // Server-side apply carries it as metadata.resourceVersion: refused the same way, force or not.
    const applied = await run(true, 'apply');
    expect(applied.outcome).toBeInstanceOf(StaleReadError);
    expect(applied.stored).toEqual({ value: 'newer apply', writer: 'successor' });
    // Without the precondition the same timing lets the stale write land over the successor's: only the server can fence it.
    const unfenced = await run(false, 'patch');
    expect(unfenced.outcome).toBe('sent');
    expect(unfenced.stored).toEqual({ value: 'stale', writer: 'frozen-replica' });
  });
  it("hands kube-apiserver's Warning headers back with the answer: a field the server dropped is named, not lost silently", async () => {
    const created = await client.create(configmaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'warned', namespace: 'default' },
      data: { a: '1' },
      spec: { oops: true },
    } as KubeObject);
    expect(warningsOf(created)).toEqual(['unknown field "spec"']);
    expect((created as KubeObject & { spec?: unknown }).spec).toBeUndefined();
    // Strict refuses the same write with the same text.
    const strict = await client
      .create(
        configmaps,
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'strict', namespace: 'default' }, spec: {} } as KubeObject,
        {
          fieldValidation: 'Strict',
        },
      )
      .catch((e: unknown) => e);
    expect(strict).toBeInstanceOf(Error);
    expect((strict as Error).message).toContain('unknown field "spec"');
  });
});
