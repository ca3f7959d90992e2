// Observed permissions = shipped RBAC, both ways. The generated controller
// of one layout runs as its ServiceAccount with exactly the shipped RBAC
// through a full life cycle (create, update with a repeated Event, a lease
// renewal, a leader handover or a member leaving, delete through the finalizer),
// on a kube-apiserver that streams lists and on one that does not (where
// informers page LISTs): every replica's /statusz/permissions is read just
// before it stops, and what they used together must be exactly what
// deploy/ grants: compareWithRbac finds nothing missing and nothing unused.
// A copy of the manifests granting one verb more, or one verb less, fails.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Layout } from 'create-protean';
import { compareWithRbac, permissionsUsed, type PermissionsUsed } from '@protean/permissions';
import type { AccessRecord } from '@protean/transport';
import type { ControllerProcess } from './controllerProcess.js';
import { toYaml } from './deployManifests.js';
import { buildGeneratedProject, type BuiltProject } from './generatedProject.js';
import { runLifecycle, startCluster, type Cluster } from './lifecycleRun.js';
import { describeGrant, grantsOf, roleName, withExtraGrant, withoutGrantIn } from './rbacVariants.js';

const RESYNC_PERIOD_MS = 10_000;

/** The observed-permissions tests of one generated layout. */
export function observedPermissionsSuite(layout: Layout): void {
  describe(`the permissions the generated controller (${layout}) used`, () => {
    let dir: string;
    let generated: BuiltProject;
    const clusters: Cluster[] = [];
    const started: ControllerProcess[] = [];
    const accesses: AccessRecord[] = [];
    const denied: string[] = [];
    let used: PermissionsUsed;

    /** Runs the life cycle on a new cluster, collecting every replica's accesses before it stops. */
    const observe = async (name: string, extraArgs: string[]): Promise<void> => {
      const c = await startCluster(generated.dir, dir, RESYNC_PERIOD_MS, { extraArgs });
      clusters.push(c);
      const outcome = await runLifecycle(c, {
        layout,
        parentName: name,
        boundMs: RESYNC_PERIOD_MS,
        started,
        beforeStop: async (replica) => {
          const r = await replica.get('/statusz/permissions');
          if (r?.status !== 200) throw new Error(`${replica.name}: /statusz/permissions answered ${r?.status ?? 'nothing'}`);
          const status = JSON.parse(r.text) as { accesses: AccessRecord[]; denied: string[] };
          accesses.push(...status.accesses);
          denied.push(...status.denied.map((d) => `${name} ${replica.name}: ${d}`));
        },
        inspect: async (o) => o,
      });
      expect(outcome).toMatchObject({ kind: 'converged' });
      await c.server.stop();
    };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'protean-observed-'));
      generated = buildGeneratedProject(layout, 'lp-demo');
      await observe('streaming', []);
      await observe('paged', ['--feature-gates=WatchList=false']);
      // Only what was observed: the LIST fallback was exercised on the server without streaming lists, so no `list` is
      // inferred from a `watch` (the leader elector's watch of its one lease never lists).
      used = permissionsUsed({ accesses }, { listWithWatch: false });
    }, 240_000);
    afterAll(async () => {
      await Promise.all(started.map((p) => p.stop()));
      await Promise.all(clusters.map((c) => c.server.stop()));
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
      generated?.remove();
    });

    const shipped = (): Cluster['ctl']['manifests'] => clusters[0]!.ctl.manifests;
    const serviceAccount = (): { namespace: string; name: string } => clusters[0]!.ctl.serviceAccount;

    it('used exactly what deploy/ grants: nothing missing, nothing unused, nothing refused', () => {
      expect(denied).toEqual([]);
      const result = compareWithRbac(used, toYaml(shipped()), { serviceAccount: serviceAccount() });
      expect({ missing: result.missing, unused: result.unused, unresolved: result.unresolved }).toEqual({
        missing: [],
        unused: [],
        unresolved: [],
      });
      // Every granted verb was used: the comparison is not vacuous.
      expect(grantsOf(shipped()).length).toBeGreaterThan(10);
    });

    it('reports a verb the manifests grant and the controller never used as unused', () => {
      const clusterRole = shipped().find((o) => o.kind === 'ClusterRole')!;
      const extra = withExtraGrant(shipped(), { role: roleName(clusterRole), apiGroup: '', resource: 'configmaps', verb: 'delete' });
      const result = compareWithRbac(used, toYaml(extra), { serviceAccount: serviceAccount() });
      expect(result.missing).toEqual([]);
      expect(result.unused).toEqual([
        expect.objectContaining({ role: roleName(clusterRole), apiGroup: '', resource: 'configmaps', verb: 'delete' }),
      ]);
    });

    it('reports every verb the manifests lack as missing, one removed rule at a time', () => {
      const notReported: string[] = [];
      for (const grant of grantsOf(shipped())) {
        const result = compareWithRbac(used, toYaml(withoutGrantIn(shipped(), grant)), { serviceAccount: serviceAccount() });
        const [resource, subresource] = grant.resource.split('/', 2);
        const named = result.missing.some(
          (m) =>
            m.kind === 'resource' &&
            m.verb === grant.verb &&
            m.group === grant.apiGroup &&
            m.resource === resource &&
            m.subresource === subresource,
        );
        if (!named || result.unused.length > 0) notReported.push(`${grant.role}: ${describeGrant(grant)}`);
      }
      expect(notReported).toEqual([]);
    });
  });
}
