import type { GroupVersionResource, NamespacedName } from '@protean/core';
import { kindOf } from './kinds.js';
import type { LatencyTracker } from './LatencyTracker.js';
import type { LiveLog } from './LiveLog.js';
import type { ReconcileReporter, ReconcileResult } from './ReconcileReporter.js';
import { instanceKey } from './instanceKey.js';

/** One human line for a handler call, e.g. `webapp team-a/shop reconciled: configmap created, count=1, generation 1`. */
export function describeResult(gvr: GroupVersionResource, instance: NamespacedName, result: ReconcileResult): string {
  const at = `${kindOf(gvr)?.singular ?? gvr.resource} ${instance.namespace}/${instance.name}`;
  switch (result.outcome) {
    case 'reconciled': {
      const cm = result.configMap === 'unchanged' ? 'configmap up to date' : `configmap ${result.configMap}`;
      const status = result.statusWritten ? ', status written' : '';
      return `${at} reconciled: ${cm}, count=${result.configMapCount}, generation ${result.generation}${status}`;
    }
    case 'deleted':
      return `${at} is gone: its child watches are released`;
    case 'invalid':
      return `${at} has an invalid spec (Ready=False): ${result.message}`;
    case 'failed': {
      const message = result.error instanceof Error ? result.error.message : String(result.error);
      return `${at} failed, will be retried: ${message}`;
    }
  }
}

/**
 * A {@link ReconcileReporter} that prints every handler call to the live
 * log and, when given a tracker, times each call against the change that
 * caused it.
 */
export function liveReporter(log: LiveLog, latency?: LatencyTracker): ReconcileReporter {
  const finished: ReconcileReporter['finished'] = (gvr, instance, result) => log.line(describeResult(gvr, instance, result));
  if (latency === undefined) return { finished };
  return { started: (gvr, instance) => latency.handlerStarted(instanceKey(gvr, instance)), finished };
}
