import type { GroupVersionResource } from '@protean/core';

/**
 * Remembers which API group versions did not serve a streaming list
 * (`sendInitialEvents`), so every informer of a {@link KubernetesInformerSource}
 * goes straight to the paginated LIST for them, and the fallback is logged
 * once per group version instead of once per informer.
 *
 * Kept per group version, not per server: behind kube-aggregator each
 * group version may be served by a different API server, one of which may
 * lack streaming lists while the main server has them.
 *
 * Easy to get wrong: a refusal is remembered for the life of this object
 * (of its source); an informer created with its own (the default outside a
 * source) remembers it only for itself.
 */
export class StreamingListSupport {
  private readonly refused = new Map<string, string>();

  /** True unless `gvr`'s group version refused a streaming list before. */
  supports(gvr: GroupVersionResource): boolean {
    return !this.refused.has(groupVersion(gvr));
  }

  /**
   * Records that `gvr`'s group version refused a streaming list because of
   * `cause`; true the first time for that group version (log it then).
   */
  refuse(gvr: GroupVersionResource, cause: string): boolean {
    const key = groupVersion(gvr);
    if (this.refused.has(key)) return false;
    this.refused.set(key, cause);
    return true;
  }

  /** The group versions that refused, with the first cause of each (`v1`, `apps/v1`, ...). */
  refusals(): ReadonlyMap<string, string> {
    return this.refused;
  }
}

function groupVersion(gvr: GroupVersionResource): string {
  return gvr.group === '' ? gvr.version : `${gvr.group}/${gvr.version}`;
}
