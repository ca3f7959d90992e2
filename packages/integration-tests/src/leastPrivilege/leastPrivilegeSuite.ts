// The least-privilege test of one generated layout: the controller
// create-protean generates, run as its ServiceAccount with exactly the RBAC
// its deploy/ ships, converges; then, for every verb of every resource of
// the shipped Role and ClusterRole (generated from the manifests, so a rule
// added later is covered), two replicas run with that one verb removed and
// the test drives a parent through its life cycle (and a leader handover or
// a member leaving) until the refusal shows: a failing /readyz naming the
// verb and resource, the refusal on /statusz/permissions and exactly one
// warn line, within one resync period of the step that needed it (a
// request the process cannot start without makes it exit 1 with a line
// naming the refusal instead). A removal that causes no failure, on this
// server nor on one without streaming lists (where informers page LISTs),
// is an unused rule and fails the test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Layout } from 'create-protean';
import type { ControllerProcess } from './controllerProcess.js';
import { denialProblems } from './denialChecks.js';
import { LifecycleStallError } from './driveLifecycle.js';
import { buildGeneratedProject, type BuiltProject } from './generatedProject.js';
import { runLifecycle, startCluster, type Cluster } from './lifecycleRun.js';
import { describeGrant, grantsOf, withoutGrantIn, type Grant } from './rbacVariants.js';

const RESYNC_PERIOD_MS = 10_000;

/** The least-privilege tests of one generated layout (one kube-apiserver, one more without streaming lists when needed). */
export function leastPrivilegeSuite(layout: Layout): void {
  describe(`the generated controller (${layout}) as its ServiceAccount`, () => {
    let dir: string;
    let generated: BuiltProject;
    let main: Cluster;
    let noStreaming: Cluster | undefined;
    const clusters: Cluster[] = [];
    const started: ControllerProcess[] = [];

    const cluster = async (extraArgs: string[]): Promise<Cluster> => {
      const c = await startCluster(generated.dir, dir, RESYNC_PERIOD_MS, { extraArgs });
      clusters.push(c);
      return c;
    };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'protean-lp-'));
      generated = buildGeneratedProject(layout, 'lp-demo');
      main = await cluster([]);
    });
    afterAll(async () => {
      await Promise.all(started.map((p) => p.stop()));
      await Promise.all(clusters.map((c) => c.server.stop()));
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
      generated?.remove();
    });

    it('converges with exactly the shipped RBAC: child applied, Ready, finalizer, Event; update, lease renewal, handover or a member leaving, and delete too', async () => {
      const outcome = await runLifecycle(main, {
        layout,
        parentName: 'baseline',
        boundMs: RESYNC_PERIOD_MS,
        started,
        inspect: async (o) => o,
      });
      expect(outcome).toMatchObject({ kind: 'converged' });
    });

    it('fails with a named 403 in /readyz, /statusz/permissions and one log line, within one resync period, for every verb of every rule removed', async () => {
      const problems: string[] = [];
      const unused: string[] = [];
      const figures: string[] = [];
      /** Runs `grant`'s variant on `c`; true when its removal caused a failure (checked into `problems`). */
      const variant = async (c: Cluster, grant: Grant, name: string, where: string): Promise<boolean> => {
        const what = `${grant.role}: ${describeGrant(grant)}`;
        await c.ctl.apply(withoutGrantIn(c.ctl.manifests, grant).filter((o) => o.kind === 'Role' || o.kind === 'ClusterRole'));
        try {
          return await runLifecycle(c, {
            layout,
            parentName: name,
            boundMs: RESYNC_PERIOD_MS,
            started,
            inspect: async (outcome) => {
              if (outcome instanceof LifecycleStallError) {
                problems.push(`${what}: ${outcome.message}`);
                return true;
              }
              if (outcome.kind === 'converged') return false;
              // Only the sharding layout's start-up reads may end the process; everything else keeps it up and not ready.
              if (outcome.kind === 'exited' && !mayExitAtStart(layout, grant))
                problems.push(`${what}: the replica exited instead of reporting the refusal in /readyz`);
              const found = await denialProblems(outcome, grant, RESYNC_PERIOD_MS);
              problems.push(...found.map((p) => `${what}: ${p}`));
              figures.push(
                `${what} (${where}): ${outcome.kind} at "${outcome.step}" ${Math.round(outcome.sinceStepMs)} ms after it` +
                  (outcome.kind === 'denied' ? `, ${Math.round(outcome.sinceStartMs)} ms after the replica started` : ''),
              );
              return true;
            },
          });
        } finally {
          await c.ctl.apply();
        }
      };
      for (const [i, grant] of grantsOf(main.ctl.manifests).entries()) {
        if (await variant(main, grant, `v${i}`, 'streaming lists')) continue;
        // Informers stream their lists here; a LIST right is used where the server does not stream them.
        noStreaming ??= await cluster(['--feature-gates=WatchList=false']);
        if (await variant(noStreaming, grant, `v${i}`, 'no streaming lists')) continue;
        unused.push(`${grant.role}: ${describeGrant(grant)}`);
      }
      process.stdout.write(`least privilege, ${layout} layout:\n${figures.join('\n')}\n`);
      expect(problems).toEqual([]);
      expect({ 'No rule in the manifests is unused; unused': unused }).toEqual({ 'No rule in the manifests is unused; unused': [] });
    }, 600_000);
  });
}

/**
 * The refusals a replica may answer by exiting (with a line naming them)
 * rather than a failing `/readyz`: the sharding layout lists the namespaces
 * before it serves anything, to probe `shardSelector` support and to read
 * its shard keys. The parent's informer is not among them: the generated main
 * keeps trying to register while `/readyz` names the refusal.
 */
function mayExitAtStart(layout: Layout, grant: Grant): boolean {
  return layout === 'sharding' && grant.apiGroup === '' && grant.resource === 'namespaces';
}
