import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { applyOwned, KubeClient, reconcileFinalizer, type KubeObject } from '@protean/client';
import type { GroupVersionResource, Handler } from '@protean/core';
import { startKubeApiServer, waitUntil, type KubeApiServer } from '@protean/envtest';
import { PassTracker } from '@protean/testing';
import { defineCrd } from './crdLifecycle.js';
import type { E2eKind } from './kinds.js';
import { startRealController, type RealController } from './startRealController.js';

const GROUP = 'gc.protean.dev';
const backups: GroupVersionResource = { group: GROUP, version: 'v1', resource: 'backups' };
const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const namespaces: GroupVersionResource = { group: '', version: 'v1', resource: 'namespaces' };
/** The Backup kind, as the e2e CRD helpers define it: `spec.cron` a string. */
const BACKUPS: E2eKind = { kind: 'Backup', gvr: backups, specFields: ['cron'] };
const FINALIZER = `${GROUP}/cleanup`;

interface Backup extends KubeObject {
  spec?: { cron?: string };
}

// A real kube-apiserver with kube-controller-manager's garbage collector and
// namespace controller: owner references cascade and namespaces terminate, as
// on a cluster.
describe('owned children, finalizers and cascading deletion with a garbage collector', () => {
  let server: KubeApiServer;
  let client: KubeClient;
  let controller: RealController;
  const cleaned: string[] = [];
  /** The Backup passes: the tests delete a Backup only once the controller is quiet. */
  const passes = new PassTracker();

  /** Keeps a ConfigMap `<name>-schedule` per Backup; on deletion records a clean-up, then lets the Backup go. */
  function backupHandler(): Handler {
    return passes.wrap(reconcileBackup());
  }

  function reconcileBackup(): Handler {
    return async ({ namespace, name }, ctx) => {
      const { signal } = ctx;
      const backup = await client.find<Backup>(backups, { namespace, name }, { signal });
      if (backup === undefined) return;
      const step = await reconcileFinalizer(client, backups, backup, {
        finalizer: FINALIZER,
        cleanup: async (b) => void cleaned.push(b.metadata?.name ?? ''),
        signal,
      });
      if (step.deleting) return;
      const schedule = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `${name}-schedule`, namespace },
        data: { cron: backup.spec?.cron ?? '' },
      };
      await applyOwned(client, ctx.watcher, configmaps, step.object, schedule, { nodeId: 'schedule', force: true, signal });
    };
  }

  const exists = async (gvr: GroupVersionResource, namespace: string, name: string): Promise<boolean> =>
    (await client.find(gvr, { namespace, name })) !== undefined;

  /**
   * Waits until the Backup's ConfigMap exists and no pass has run for a second (the pass its own creation
   * triggered included). Deleting the Backup earlier races a pass that read it before the deletion and
   * applies the ConfigMap after the garbage collector removed it: the child would come back, owned by an
   * owner on its way out, until the collector removes it again. That race is the controller's, not what
   * these tests are about.
   */
  async function settledWith(child: string): Promise<void> {
    await waitUntil(
      async () => passes.quietFor(1000) && (await exists(configmaps, 'default', child)),
      `the owned ConfigMap ${child}, and a quiet controller`,
      20_000,
    );
  }

  beforeAll(async () => {
    server = await startKubeApiServer({ controllers: ['garbagecollector', 'namespace'] });
    client = new KubeClient({ kubeConfig: server.kubeConfig, fieldManager: 'backup-controller' });
    await defineCrd(server.kubeConfig, BACKUPS);
    controller = await startRealController({ kubeConfig: server.kubeConfig });
    await controller.controller.register(backups, backupHandler());
  });

  afterAll(async () => {
    await controller?.stop();
    client?.close();
    await server?.stop();
  });

  it('runs the clean-up pass of a deleted Backup, removes its finalizer, and the garbage collector deletes its ConfigMap', async () => {
    await client.create(backups, {
      apiVersion: `${GROUP}/v1`,
      kind: 'Backup',
      metadata: { name: 'nightly', namespace: 'default' },
      spec: { cron: '@daily' },
    });
    await settledWith('nightly-schedule');
    expect((await client.get(backups, { namespace: 'default', name: 'nightly' })).metadata.finalizers).toEqual([FINALIZER]);

    const kept = await client.delete(backups, { namespace: 'default', name: 'nightly' });
    expect(kept?.metadata?.deletionTimestamp).toEqual(expect.any(String)); // the finalizer holds it for the clean-up pass
    await waitUntil(async () => !(await exists(backups, 'default', 'nightly')), 'the Backup to be deleted', 20_000);
    expect(cleaned).toEqual(['nightly']);
    await waitUntil(
      async () => !(await exists(configmaps, 'default', 'nightly-schedule')),
      'the garbage collector to delete the ConfigMap',
      30_000,
    );
  });

  it('deletes the owned ConfigMap before the Backup with foreground deletion', async () => {
    await client.create(backups, {
      apiVersion: `${GROUP}/v1`,
      kind: 'Backup',
      metadata: { name: 'weekly', namespace: 'default' },
      spec: { cron: '@weekly' },
    });
    await settledWith('weekly-schedule');
    const deleting = await client.delete(backups, { namespace: 'default', name: 'weekly' }, { propagationPolicy: 'Foreground' });
    expect(deleting?.metadata?.finalizers).toEqual(expect.arrayContaining(['foregroundDeletion', FINALIZER]));
    // The owner stays while its blocking dependent exists: at no poll is the ConfigMap there without its Backup.
    let sawChildWithoutOwner = false;
    await waitUntil(
      async () => {
        const owner = await exists(backups, 'default', 'weekly');
        const child = await exists(configmaps, 'default', 'weekly-schedule');
        if (child && !owner) sawChildWithoutOwner = true;
        return !child && !owner;
      },
      'the ConfigMap, then the Backup, to be deleted',
      30_000,
    );
    expect(sawChildWithoutOwner).toBe(false);
    expect(cleaned).toContain('weekly');
  });

  it('finishes deleting a namespace with content (the namespace controller runs)', async () => {
    await client.create(namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } });
    await client.create(configmaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'doomed' },
      data: { a: '1' },
    });
    await client.delete(namespaces, { name: 'doomed' });
    await waitUntil(async () => !(await exists(namespaces, '', 'doomed')), 'the namespace to finish terminating', 60_000);
  });
});
