/**
 * What to check when the API server answers 404 for a whole resource (not
 * for one object): the hint `register()` and `KubeClient` append to such an
 * error, in parentheses.
 *
 * Easy to get wrong: `resource` is the plural (`configmaps`, not
 * `configmap` or `ConfigMap`), and a just-created CRD is served only once
 * it is established.
 */
export const UNSERVED_RESOURCE_HINT =
  'is the resource served? check the CRD is installed and established, and that `resource` is the plural name';
