import { type DeclaredWatch, type RouteQuery, type WatchMissField } from '@protean/core';
import { selectorMismatch } from '@protean/core/internal';
import type { WatchEntry } from './WatchEntry.js';

/** An indexed entry as plain data; `committed` when it is the entry of its instance's committed set. */
export function declaredWatch(entry: WatchEntry): DeclaredWatch {
  const committed = entry.instance.committed.get(entry.nodeId) === entry;
  if (entry.selector === undefined) {
    return { kind: 'scalar', nodeId: entry.nodeId, gvr: entry.gvrKey, namespace: entry.namespace, name: entry.name, committed };
  }
  return {
    kind: 'collection',
    nodeId: entry.nodeId,
    gvr: entry.gvrKey,
    ...(entry.namespace === '' ? {} : { namespace: entry.namespace }),
    selector: entry.selector.toString(),
    committed,
  };
}

/** Why an entry does not route `query`: the field and a sentence. */
export interface EntryMiss {
  readonly field: WatchMissField;
  readonly reason: string;
}

/**
 * Whether `entry` (of the query's GVR) routes an event for `query`, by the
 * rules the indexes implement: a scalar entry by namespace and name, a
 * collection entry by namespace filter (`""`: all; a namespaced filter never
 * meets a cluster-scoped object) and then its selector. Undefined: it routes.
 */
export function entryMiss(entry: WatchEntry, query: RouteQuery): EntryMiss | undefined {
  const where = query.namespace === '' ? 'the object is cluster-scoped' : `the object is in namespace ${JSON.stringify(query.namespace)}`;
  if (entry.selector === undefined) {
    if (entry.namespace !== query.namespace) {
      return {
        field: 'namespace',
        reason:
          entry.namespace === ''
            ? `${where}, the watch is of the cluster-scoped object ${JSON.stringify(entry.name)}`
            : `${where}, the watch is of ${JSON.stringify(`${entry.namespace}/${entry.name}`)}`,
      };
    }
    if (entry.name !== query.name) {
      return { field: 'name', reason: `the object is named ${JSON.stringify(query.name)}, the watch is of ${JSON.stringify(entry.name)}` };
    }
    return undefined;
  }
  if (entry.namespace !== '' && entry.namespace !== query.namespace) {
    return { field: 'namespace', reason: `${where}, the watch is limited to namespace ${JSON.stringify(entry.namespace)}` };
  }
  const mismatch = selectorMismatch(entry.selector, query.labels);
  return mismatch === undefined ? undefined : { field: 'selector', reason: mismatch.reason };
}
