/**
 * A Kubernetes resource type as the API server serves it: API group (`""`
 * for the core group), version and plural resource name.
 */
export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/**
 * An object's identity within one resource type. `namespace` is `""` for
 * cluster-scoped objects (never `undefined`, so keys stay canonical).
 */
export interface NamespacedName {
  readonly namespace: string;
  readonly name: string;
}

/** An object's identity across resource types. */
export interface ObjectIdentifiers extends NamespacedName {
  readonly gvr: GroupVersionResource;
}

/**
 * The canonical string form of a GVR, `group/version/resource`, used as a
 * map key and as the `gvr` label of every metric. The core group keeps its
 * empty segment (`/v1/configmaps`) so that two GVRs are equal exactly when
 * their keys are.
 */
export function gvrKey(gvr: GroupVersionResource): string {
  return `${gvr.group}/${gvr.version}/${gvr.resource}`;
}

/**
 * Parses a key made by {@link gvrKey}; throws when it has not three
 * segments. The message shows a grouped and a core-group example, and for
 * `version/resource` (`v1/configmaps`) the key it most likely meant.
 *
 * Easy to get wrong: the core group is the empty string, so its keys start
 * with `/` (`/v1/configmaps`), not with `v1/` nor `core/`.
 */
export function parseGvrKey(key: string): GroupVersionResource {
  const parts = key.split('/');
  if (parts.length !== 3 || parts[1] === '' || parts[2] === '') {
    const coreGuess = parts.length === 2 && /^v\d+((alpha|beta)\d+)?$/.test(parts[0]!) ? `; for the core group write "/${key}"` : '';
    throw new TypeError(
      `invalid GVR key ${JSON.stringify(key)}: expected "group/version/resource", e.g. "apps/v1/deployments", or "/v1/configmaps" for the core group (group '')${coreGuess}`,
    );
  }
  const [group, version, resource] = parts as [string, string, string];
  return { group, version, resource };
}

/** True when both GVRs name the same resource type. */
export function gvrEquals(a: GroupVersionResource, b: GroupVersionResource): boolean {
  return a.group === b.group && a.version === b.version && a.resource === b.resource;
}

/**
 * The `namespace/name` key client-go uses for objects (`name` alone for
 * cluster-scoped objects).
 */
export function namespacedNameKey(nn: NamespacedName): string {
  return nn.namespace === '' ? nn.name : `${nn.namespace}/${nn.name}`;
}

/** Inverse of {@link namespacedNameKey}. */
export function parseNamespacedNameKey(key: string): NamespacedName {
  const slash = key.indexOf('/');
  return slash < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
