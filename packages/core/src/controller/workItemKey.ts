import { gvrKey, namespacedNameKey, type ObjectIdentifiers } from '../gvr.js';

/**
 * Identity of a DynamicController work item: `group/version/resource|namespace/name`.
 * Two events for one instance collapse into one queued item, and the queue
 * never hands that key to two workers at once.
 */
export function workItemKey(item: ObjectIdentifiers): string {
  return `${gvrKey(item.gvr)}|${namespacedNameKey(item)}`;
}
