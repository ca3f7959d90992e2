import { setStatusCondition, type Condition } from '@protean/client';
import type { WebAppObject, WebAppStatus } from './WebAppObject.js';

/** The outcome a status write reports: ready with a count, or not ready with a reason. */
export type StatusReport =
  { readonly ready: true; readonly configMapCount: number } | { readonly ready: false; readonly reason: string; readonly message: string };

/**
 * The status `report` asks for, or `undefined` when the instance already
 * has it (then nothing needs writing). The `Ready` condition is set with
 * `setStatusCondition` semantics: other conditions are kept, and
 * `lastTransitionTime` moves only when the condition's status changes.
 * A not-ready instance keeps its last count rather than claiming zero.
 */
export function nextStatus(obj: WebAppObject, report: StatusReport, now: Date = new Date()): WebAppStatus | undefined {
  const generation = obj.metadata.generation ?? 0;
  const current = obj.status ?? {};
  const conditions: Condition[] = structuredClone(current.conditions ?? []);
  const conditionChanged = setStatusCondition(
    conditions,
    report.ready
      ? {
          type: 'Ready',
          status: 'True',
          reason: 'Reconciled',
          message: `${report.configMapCount} ConfigMap(s) labelled app=${obj.metadata.name}`,
          observedGeneration: generation,
        }
      : { type: 'Ready', status: 'False', reason: report.reason, message: report.message, observedGeneration: generation },
    now,
  );
  const next: WebAppStatus = { observedGeneration: generation, conditions };
  const count = report.ready ? report.configMapCount : current.configMapCount;
  if (count !== undefined) next.configMapCount = count;
  const changed = conditionChanged || current.observedGeneration !== generation || current.configMapCount !== count;
  return changed ? next : undefined;
}
