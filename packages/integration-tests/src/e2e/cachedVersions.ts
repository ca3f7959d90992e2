import type { InformerCache } from '@protean/core';

/** Something with Kubernetes object metadata, as a client-node list returns it. */
interface Listed {
  readonly metadata?: { readonly name?: string; readonly resourceVersion?: string };
}

/** `name@resourceVersion` of every object of `namespace` in the informer's cache, sorted. */
export function cachedVersions(informer: InformerCache, namespace: string): string[] {
  return informer
    .list()
    .filter((o) => o.metadata.namespace === namespace)
    .map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`)
    .sort();
}

/** `name@resourceVersion` of every listed object, sorted, to compare with {@link cachedVersions}. */
export function listedVersions(items: readonly Listed[]): string[] {
  return items.map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`).sort();
}

/**
 * True when the cache holds exactly the listed objects at the listed
 * resourceVersions: the informer has seen every event up to that list.
 */
export function sameVersions(informer: InformerCache, namespace: string, items: readonly Listed[]): boolean {
  const cached = cachedVersions(informer, namespace);
  const listed = listedVersions(items);
  return cached.length === listed.length && cached.every((v, i) => v === listed[i]);
}
