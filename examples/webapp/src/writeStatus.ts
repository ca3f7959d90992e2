import type { CustomObjectsApi } from '@kubernetes/client-node';
import type { GroupVersionResource } from '@protean/core';
import { requestOptions } from './requestOptions.js';
import type { ReadyCondition, WebAppObject, WebAppStatus } from './WebAppObject.js';

/** The outcome a status write reports: ready with a count, or not ready with a reason. */
export type StatusReport =
  { readonly ready: true; readonly configMapCount: number } | { readonly ready: false; readonly reason: string; readonly message: string };

/** The status `report` asks for, keeping the condition's transition time while its status holds. */
export function desiredStatus(obj: WebAppObject, report: StatusReport, now: () => Date = () => new Date()): WebAppStatus {
  const generation = obj.metadata.generation ?? 0;
  const previous = obj.status?.conditions?.find((c) => c.type === 'Ready');
  const status = report.ready ? 'True' : 'False';
  const ready: ReadyCondition = {
    type: 'Ready',
    status,
    reason: report.ready ? 'Reconciled' : report.reason,
    message: report.ready ? `${report.configMapCount} ConfigMap(s) labelled app=${obj.metadata.name}` : report.message,
    observedGeneration: generation,
    lastTransitionTime: previous?.status === status ? previous.lastTransitionTime : now().toISOString(),
  };
  const next: WebAppStatus = { observedGeneration: generation, conditions: [ready] };
  // A not-ready instance keeps its last count rather than claiming zero.
  const count = report.ready ? report.configMapCount : obj.status?.configMapCount;
  if (count !== undefined) next.configMapCount = count;
  return next;
}

/**
 * Writes the status `report` asks for through the status subresource as a
 * JSON merge patch, unless the instance already has it. Returns whether it
 * wrote. A status write never bumps `metadata.generation`, so it does not
 * trigger another reconcile of the instance.
 */
export async function writeStatus(
  objects: CustomObjectsApi,
  gvr: GroupVersionResource,
  obj: WebAppObject,
  report: StatusReport,
  signal: AbortSignal,
): Promise<boolean> {
  const next = desiredStatus(obj, report);
  const current = obj.status ?? {};
  if (
    current.configMapCount === next.configMapCount &&
    current.observedGeneration === next.observedGeneration &&
    current.conditions?.length === 1 &&
    sameCondition(current.conditions[0], next.conditions?.[0])
  ) {
    return false;
  }
  await objects.patchNamespacedCustomObjectStatus(
    {
      group: gvr.group,
      version: gvr.version,
      plural: gvr.resource,
      namespace: obj.metadata.namespace,
      name: obj.metadata.name,
      body: { status: next },
    },
    requestOptions(signal, 'merge'),
  );
  return true;
}

/** Field by field: a real API server may hand the condition back with its keys reordered. */
function sameCondition(a: ReadyCondition | undefined, b: ReadyCondition | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return (
    a.type === b.type &&
    a.status === b.status &&
    a.reason === b.reason &&
    a.message === b.message &&
    a.observedGeneration === b.observedGeneration &&
    a.lastTransitionTime === b.lastTransitionTime
  );
}
