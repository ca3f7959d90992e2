import { expect } from '@jest/globals';
import type { NamespacedName } from '@protean/core';
import { waitFor } from '@protean/core/testing';
import type { KubernetesInformerSourceOptions } from '@protean/watch-manager';
import { GADGETS, WIDGETS, type E2eKind } from '../e2e/kinds.js';
import {
  childrenConverged,
  installCrd,
  removeCrd,
  startKindChangeRun,
  type KindChangeRun,
  type KindChangeTarget,
} from './kindChangeScenario.js';

/**
 * Every backoff of the controller's informers starts at a minute: an instance that converges before then was woken by
 * the CRD watch, not by a retry (the proof is structural; the time it took is printed with KIND_CHANGES_PRINT=1).
 */
export const BACKOFF_OF_A_MINUTE = { backoff: { initialMs: 60_000, maxMs: 60_000 } } as const;
/** Shorter than the backoff: converging within it proves the wake. */
const WITHIN_THE_BACKOFF_MS = 30_000;

const INSTANCES = 3;

/** Log lines (info and above) of one kind: at most this many per transition. */
function linesAbout(run: KindChangeRun, kind: E2eKind): string[] {
  const key = `${kind.gvr.group}/${kind.gvr.version}/${kind.gvr.resource}`;
  return run.logs.records.filter((r) => r.level >= 30 && (r['gvr'] === key || r['kind'] === key)).map((r) => String(r.msg));
}

/**
 * Instances created before their child's CRD: parked, never taken for
 * deleted, and converged once the CRD is Established, before any backoff
 * of the informers (a minute) could have run out; then the CRD deleted
 * for `outageMs` and created again with another schema: converged again
 * the same way.
 */
export async function crdLateThenGoneAndBack(
  target: KindChangeTarget,
  outageMs: number,
  informer: Partial<Omit<KubernetesInformerSourceOptions, 'kubeConfig'>> = BACKOFF_OF_A_MINUTE,
): Promise<void> {
  const child: E2eKind = GADGETS;
  await installCrd(target.admin, WIDGETS);
  const run = await startKindChangeRun(target, WIDGETS, child, { informer });
  try {
    const instances: NamespacedName[] = [];
    for (let i = 0; i < INSTANCES; i++) {
      await run.cluster.createInstance(WIDGETS, `w${i}`, 'x');
      instances.push({ namespace: run.cluster.namespace, name: `w${i}` });
    }
    // Every instance met the missing kind and waits for it.
    await waitFor(() => run.observer.outcomes().filter((o) => o === 'waiting').length >= INSTANCES, {
      timeoutMs: 30_000,
      message: 'every instance to wait for the child kind',
    });
    const established = await installCrd(target.admin, child);
    const converged = await childrenConverged(run, instances, WITHIN_THE_BACKOFF_MS);
    // Never taken for deleted, never a failed pass, nothing dropped.
    expect(run.observer.outcomes().filter((o) => o === 'not_found' || o === 'dropped' || o === 'error')).toEqual([]);
    const first = linesAbout(run, child);
    expect(first.filter((m) => m.includes('is not available'))).toHaveLength(1);
    expect(first.filter((m) => m.includes('available again'))).toHaveLength(1);

    // Gone: its objects go with it (kube-apiserver deletes them first), the instances wait again.
    run.logs.clear();
    await removeCrd(target.admin, child);
    await new Promise((r) => setTimeout(r, outageMs));
    const again: E2eKind = { ...child, specFields: ['size', 'colour'] };
    const reEstablished = await installCrd(target.admin, again);
    const reconverged = await childrenConverged(run, instances, WITHIN_THE_BACKOFF_MS);
    expect(run.observer.outcomes().filter((o) => o === 'not_found' || o === 'dropped')).toEqual([]);
    // One line or two per transition and kind (gone, back), whatever the number of instances.
    const lines = linesAbout(run, child);
    if (process.env['KIND_CHANGES_PRINT'] === '1') {
      console.log({ lateMs: converged - established, backMs: reconverged - reEstablished, first, lines });
    }
    expect(lines.length).toBeLessThanOrEqual(4);
  } finally {
    await run.stop();
  }
}
