/**
 * The non-resource URLs Kubernetes' default ClusterRoles `system:discovery`
 * and `system:public-info-viewer` let every authenticated user GET:
 * discovery (`/api`, `/api/*`, `/apis`, `/apis/*`), `/version`, `/openapi`
 * and `/openapi/*`, and the health endpoints. No controller Role needs them.
 */
export function grantedToEveryone(path: string): boolean {
  const p = path.endsWith('/') && path.length > 1 ? path.slice(0, -1) : path;
  if (EXACT.has(p)) return true;
  return PREFIXES.some((prefix) => p.startsWith(prefix));
}

const EXACT: ReadonlySet<string> = new Set(['/api', '/apis', '/version', '/openapi', '/healthz', '/livez', '/readyz']);
const PREFIXES: readonly string[] = ['/api/', '/apis/', '/openapi/', '/healthz/', '/livez/', '/readyz/'];

/**
 * Resources `system:basic-user` lets every authenticated user create:
 * the self-reviews (`selfsubjectaccessreviews`, `selfsubjectrulesreviews`,
 * `selfsubjectreviews`). Keyed `group|resource`.
 */
export const RESOURCES_GRANTED_TO_EVERYONE: ReadonlySet<string> = new Set([
  'authorization.k8s.io|selfsubjectaccessreviews',
  'authorization.k8s.io|selfsubjectrulesreviews',
  'authentication.k8s.io|selfsubjectreviews',
]);
