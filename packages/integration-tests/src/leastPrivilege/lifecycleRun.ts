// A generated controller on one kube-apiserver, and one run of it: two
// replicas from a fresh install (no lease) driven through a parent's
// create, update, a lease renewal, a leader handover (leader-election
// layout) or a member leaving (sharding layout), and delete.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { kubeRequest, startKubeApiServer, type KubeApiServer, type KubeApiServerOptions } from '@protean/envtest';
import type { ControllerProcess } from './controllerProcess.js';
import { ControllerUnderTest } from './controllerUnderTest.js';
import { driveLifecycle, LifecycleStallError, type LifecycleOutcome, type LifecycleStep } from './driveLifecycle.js';
import { leaderHandover, leaseRenewed, memberLeaves } from './leaseSteps.js';
import { ParentLifecycle } from './parentLifecycle.js';

/** The namespace the parents are created in (not the controller's). */
export const WORK_NAMESPACE = 'lp-work';

/** One kube-apiserver with a generated project's deploy/ objects (but the Deployment) applied. */
export interface Cluster {
  readonly server: KubeApiServer;
  readonly ctl: ControllerUnderTest;
}

/** Starts a kube-apiserver and applies the project's objects; the controller gets `resyncPeriodMs`. */
export async function startCluster(
  projectDir: string,
  tempDir: string,
  resyncPeriodMs: number,
  options: KubeApiServerOptions = {},
): Promise<Cluster> {
  const server = await startKubeApiServer(options);
  try {
    const ctl = new ControllerUnderTest(server.kubeConfig, {
      projectDir,
      tempDir: mkdtempSync(join(tempDir, 'cluster-')),
      env: { RESYNC_PERIOD_MS: String(resyncPeriodMs) },
    });
    await ctl.apply();
    await kubeRequest(server.kubeConfig, 'POST', '/api/v1/namespaces', { body: { metadata: { name: WORK_NAMESPACE } } });
    return { server, ctl };
  } catch (err) {
    await server.stop();
    throw err;
  }
}

/** A run's outcome: how the life cycle ended, or the step that stalled. */
export type RunOutcome = LifecycleOutcome | LifecycleStallError;

/** Options of {@link runLifecycle}. */
export interface RunOptions<T> {
  /** Which generated layout runs: the step between update and delete differs. */
  readonly layout: 'leader-election' | 'sharding';
  readonly parentName: string;
  /** Bound of each step (and the watch after the last): the controller's resync period. */
  readonly boundMs: number;
  /** Every replica started (the caller stops them in afterAll should a run throw). */
  readonly started: ControllerProcess[];
  /** Called with each replica just before it is stopped (the handover's leader, then the rest). */
  readonly beforeStop?: (replica: ControllerProcess) => Promise<void>;
  /** Sees the outcome while the replicas still run. */
  readonly inspect: (outcome: RunOutcome) => Promise<T>;
}

/**
 * Two replicas from a fresh install (leases deleted first), driven through
 * create, update (the same replica repeats its Event: a series patch), a
 * lease renewal, a leader handover (leader election) or one member leaving
 * and its released lease removed (sharding), and delete; every replica is
 * stopped and the parent removed afterwards, whatever happened.
 */
export async function runLifecycle<T>(c: Cluster, options: RunOptions<T>): Promise<T> {
  const { server, ctl } = c;
  await ctl.forgetLeases();
  const replicas = await Promise.all([ctl.start(), ctl.start()]);
  options.started.push(...replicas);
  const live = [...replicas];
  const parent = new ParentLifecycle(server.kubeConfig, ctl.parent, WORK_NAMESPACE, options.parentName);
  const beforeStop = options.beforeStop ?? (async () => {});
  const steps: LifecycleStep[] = [
    parent.step('create'),
    parent.step('update'),
    leaseRenewed(server.kubeConfig, ctl.serviceAccount.namespace),
    options.layout === 'leader-election'
      ? leaderHandover(server.kubeConfig, ctl.serviceAccount.namespace, live, beforeStop)
      : memberLeaves(server.kubeConfig, ctl.serviceAccount.namespace, live, beforeStop),
    parent.step('delete'),
  ];
  try {
    let outcome: RunOutcome;
    try {
      outcome = await driveLifecycle({ replicas: () => live, steps, boundMs: options.boundMs });
    } catch (err) {
      if (!(err instanceof LifecycleStallError)) throw err;
      outcome = err;
    }
    const result = await options.inspect(outcome);
    for (const r of live) if (r.running) await beforeStop(r);
    return result;
  } finally {
    await Promise.all(replicas.map((r) => r.stop()));
    await parent.cleanUp();
  }
}
