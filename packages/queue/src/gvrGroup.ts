import { gvrKey, type GroupVersionResource } from '@protean/core';

/**
 * The group of a work item for fair queuing: `gvrKey(item.gvr)` when the
 * item carries a GroupVersionResource under `gvr` (the DynamicController's
 * `ObjectIdentifiers` do: the group is the parent resource type), otherwise
 * `''`. The default group of {@link fairQueueModule} and
 * {@link createFairWorkQueueFactory}, which build queues for items of any type.
 *
 * Easy to get wrong: items without a well-formed `gvr` (all three fields
 * strings) all share the group `''`, so a queue of such items is plain FIFO;
 * pass your own group function for other item shapes.
 */
export function gvrGroup(item: unknown): string {
  if (typeof item !== 'object' || item === null) return '';
  const gvr = (item as { readonly gvr?: unknown }).gvr;
  return isGvr(gvr) ? gvrKey(gvr) : '';
}

function isGvr(value: unknown): value is GroupVersionResource {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<Record<keyof GroupVersionResource, unknown>>;
  return typeof v.group === 'string' && typeof v.version === 'string' && typeof v.resource === 'string';
}
