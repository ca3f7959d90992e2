import { gvrKey, type GroupVersionResource } from './gvr.js';
import type { PartialObjectMetadata } from './informer.js';

/**
 * The versions of the objects one pass read (`ctx.get`, `ctx.list`, and
 * `@protean/client` reads made with the pass's `ctx.signal`), and of those
 * it wrote since: what the client sends as the precondition of a write to
 * one of them (the server-enforced fence). Lists are kept as read and
 * searched only when a write asks, so a large list costs nothing per item.
 */
class PassReads {
  /** `gvrKey|namespace/name` -> the version and when (in list count) it was recorded. */
  private readonly objects = new Map<string, { readonly version: string; readonly at: number }>();
  private readonly lists: { readonly gvr: string; readonly objects: readonly PartialObjectMetadata[] }[] = [];

  object(gvr: GroupVersionResource, obj: PartialObjectMetadata): void {
    const version = obj.metadata?.resourceVersion;
    if (version === undefined || version === '') return;
    this.objects.set(keyOf(gvrKey(gvr), obj.metadata.namespace ?? '', obj.metadata.name), { version, at: this.lists.length });
  }

  list(gvr: GroupVersionResource, objects: readonly PartialObjectMetadata[]): void {
    if (objects.length > 0) this.lists.push({ gvr: gvrKey(gvr), objects });
  }

  versionOf(gvr: GroupVersionResource, namespace: string, name: string): string | undefined {
    const gk = gvrKey(gvr);
    const single = this.objects.get(keyOf(gk, namespace, name));
    // The latest read wins: a list read after the object was read alone, or the object read (or written) after.
    for (let i = this.lists.length - 1; i >= (single?.at ?? 0); i--) {
      const list = this.lists[i]!;
      if (list.gvr !== gk) continue;
      const found = list.objects.find((o) => o.metadata.name === name && (o.metadata.namespace ?? '') === namespace);
      const version = found?.metadata.resourceVersion;
      if (version !== undefined && version !== '') return version;
    }
    return single?.version;
  }
}

function keyOf(gvr: string, namespace: string, name: string): string {
  return `${gvr}|${namespace}/${name}`;
}

const reads = new WeakMap<AbortSignal, PassReads>();

/**
 * Starts recording what the pass of `signal` reads (the worker pool calls
 * it for each pass's `ctx.signal`; `fenceSignal` carries it to signals
 * derived from it).
 */
export function bindPassReads(signal: AbortSignal, from?: AbortSignal): void {
  const existing = from === undefined ? undefined : reads.get(from);
  reads.set(signal, existing ?? new PassReads());
}

/**
 * Records that the pass of `signal` read (or wrote) `objects` of `gvr`:
 * a later write to one of them made with the same signal carries its
 * resourceVersion as a precondition. Does nothing for a signal no pass is
 * tied to, or without one.
 */
export function noteRead(
  signal: AbortSignal | undefined,
  gvr: GroupVersionResource,
  objects: PartialObjectMetadata | readonly PartialObjectMetadata[] | undefined,
): void {
  if (signal === undefined || objects === undefined) return;
  const pass = reads.get(signal);
  if (pass === undefined) return;
  if (Array.isArray(objects)) pass.list(gvr, objects as readonly PartialObjectMetadata[]);
  else pass.object(gvr, objects as PartialObjectMetadata);
}

/** The resourceVersion the pass of `signal` last read (or wrote) `namespace/name` of `gvr` at, if it did. */
export function readVersionOf(
  signal: AbortSignal | undefined,
  gvr: GroupVersionResource,
  namespace: string,
  name: string,
): string | undefined {
  if (signal === undefined) return undefined;
  return reads.get(signal)?.versionOf(gvr, namespace, name);
}
