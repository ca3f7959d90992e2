import { gvrKey, type DynamicController, type ExplainTarget, type GroupVersionResource } from '@protean/core';

/** A Kubernetes object (or its metadata) of a known GVR, as a test holds it. */
export interface RoutesOfObject {
  readonly gvr: GroupVersionResource;
  readonly metadata: { readonly namespace?: string; readonly name: string; readonly labels?: Readonly<Record<string, string>> };
}

/**
 * The instances an event for `target` is routed to, as sorted, distinct
 * `namespace/name` keys (`name` for a cluster-scoped instance), from
 * `controller.explain(...)`: one line to assert routing in a test,
 * `expect(routesOf(t.controller, { gvr: CONFIGMAPS, ...configMap })).toEqual(['default/shop'])`.
 *
 * `target` is either what `explain` takes (without `labels`, they are read
 * from the informer cache) or an object with `gvr` and `metadata`, whose
 * labels are used as given (none when it has none). An object of a
 * registered parent GVR routes to its own instance too. `parent` keeps only
 * the instances of that parent GVR.
 *
 * Easy to get wrong: it answers for an event with exactly these labels; an
 * update routes on its old labels too (see `DynamicController.explain`).
 */
export function routesOf(
  controller: DynamicController,
  target: ExplainTarget | RoutesOfObject,
  options: { readonly parent?: GroupVersionResource } = {},
): string[] {
  const query: ExplainTarget =
    'metadata' in target
      ? {
          gvr: target.gvr,
          ...(target.metadata.namespace === undefined ? {} : { namespace: target.metadata.namespace }),
          name: target.metadata.name,
          labels: target.metadata.labels ?? {},
        }
      : target;
  const parent = options.parent === undefined ? undefined : gvrKey(options.parent);
  const keys = new Set<string>();
  for (const route of controller.explain(query).routes) if (parent === undefined || route.parent === parent) keys.add(route.instance);
  return [...keys].sort();
}
