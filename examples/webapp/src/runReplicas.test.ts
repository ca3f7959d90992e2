import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { REPLICA_DEMO_NAMESPACES, WEBAPPS_PER_NAMESPACE } from './replicaDemoPlan.js';
import { runReplicas } from './runReplicas.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const tsc = join(packageDir, '..', '..', 'node_modules', 'typescript', 'bin', 'tsc');

describe('runReplicas (pnpm demo -- --replicas 3, end to end)', () => {
  // The replicas are child processes running dist/replicaMain.js: build what this test runs.
  beforeAll(async () => {
    await promisify(execFile)(process.execPath, [tsc, '-b', packageDir], { cwd: packageDir });
  }, 300_000);

  it('splits the namespaces over three replicas, takes the share of a killed one over, and converges', async () => {
    const lines: string[] = [];
    const logs: string[] = [];

    const summary = await runReplicas({ out: (l) => lines.push(l), replicaLog: (l) => logs.push(l), replicas: 3, stepTimeoutMs: 60_000 });

    expect(summary.phases.filter((p) => !p.ok)).toEqual([]);
    expect(summary.ok).toBe(true);
    expect(summary.phases).toHaveLength(6);
    expect(summary.mode).toBe('client'); // the in-memory server has no shardSelector: each replica filters
    const webAppsPerNamespace = WEBAPPS_PER_NAMESPACE.length;

    // The split: every namespace exactly once, 4 each, every WebApp reconciled by the owner of its namespace and by nobody else.
    const split = summary.split;
    expect(split.map((s) => s.identity)).toEqual(['replica-0', 'replica-1', 'replica-2']);
    expect(split.flatMap((s) => s.namespaces).sort()).toEqual([...REPLICA_DEMO_NAMESPACES].sort());
    for (const share of split) {
      expect(share.namespaces).toHaveLength(4);
      expect(share.webApps).toBe(4 * webAppsPerNamespace);
      expect(share.reconciled).toBe(share.webApps);
    }
    expect(summary.passesOutsideShare).toBe(0);

    // The takeover: replica-1 died by SIGKILL with its lease still held; the two others now own every namespace exactly once.
    const t = summary.takeover!;
    expect(t.victim).toBe('replica-1');
    expect(t.exitSignal).toBe('SIGKILL');
    expect(t.leaseHolderAfterKill).toBe('replica-1');
    expect(t.after.map((s) => s.identity)).toEqual(['replica-0', 'replica-2']);
    expect(t.after.flatMap((s) => s.namespaces).sort()).toEqual([...REPLICA_DEMO_NAMESPACES].sort());
    const victimNamespaces = split.find((s) => s.identity === 'replica-1')!.namespaces;
    expect(
      t.moves
        .filter((m) => m.from === 'replica-1')
        .map((m) => m.namespace)
        .sort(),
    ).toEqual([...victimNamespaces].sort());
    for (const m of t.moves) expect(t.after.find((s) => s.identity === m.to)!.namespaces).toContain(m.namespace);
    expect(t.orphans).toBe(victimNamespaces.length * webAppsPerNamespace);
    for (const c of t.countedOut) expect(c.afterMs).toBeGreaterThan(0);
    expect(t.reconciledAgainMs).toBeGreaterThan(0);
    expect(t.convergedMs).toBeGreaterThanOrEqual(t.reconciledAgainMs!);
    // Each survivor reconciled (at least) every WebApp that moved to it.
    for (const share of t.after) {
      const movedIn = t.moves.filter((m) => m.to === share.identity).length * webAppsPerNamespace;
      expect(share.reconciled).toBeGreaterThanOrEqual(movedIn);
    }

    // Exclusive handoff: no two replicas ever ran a pass of one WebApp at the same time, over the whole run.
    expect(summary.overlaps).toBe(0);

    // Everything converged, the survivors stopped gracefully.
    expect(summary.converged).toBe(REPLICA_DEMO_NAMESPACES.length * webAppsPerNamespace);
    expect(summary.exits).toEqual({ 'replica-1': 'killed (SIGKILL)', 'replica-0': 'exit 0', 'replica-2': 'exit 0' });
    expect(lines).toContain('=== Split over 3 replicas ===');
    expect(lines).toContain('=== Takeover: the shares now ===');
    expect(lines.some((l) => l.startsWith('result:') && l.includes('converged: all 36 WebApps over 12 namespaces'))).toBe(true);
    expect(logs.filter((l) => l.includes('"level":50'))).toEqual([]);
  }, 300_000);
});
