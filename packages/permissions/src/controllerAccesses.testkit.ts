import { AccessLog } from '@protean/transport';

const RBAC_DENIED = (verb: string, resource: string, ns: string): string =>
  JSON.stringify({
    kind: 'Status',
    code: 403,
    reason: 'Forbidden',
    message: `${resource} "x" is forbidden: User "system:serviceaccount:ctl:ctl" cannot ${verb} resource "${resource}" in API group "" in the namespace "${ns}"`,
  });

/**
 * The accesses of a typical controller in namespace `ctl` reconciling
 * webapps in every namespace: its parent informer, a child informer of
 * ConfigMaps in all namespaces, server-side apply of ConfigMaps in `demo`
 * (one refused), status updates, Events, its leader-election Lease, and
 * discovery. Recorded by a real AccessLog.
 */
export function controllerAccesses(): AccessLog {
  const log = new AccessLog({ now: () => 1_000 });
  const answers: [string, string, number, string?][] = [
    ['GET', '/version', 200],
    ['GET', '/apis/demo.protean.dev/v1', 200],
    ['GET', '/apis/demo.protean.dev/v1/webapps?limit=500', 200],
    ['GET', '/apis/demo.protean.dev/v1/webapps?watch=true&allowWatchBookmarks=true', 200],
    ['PUT', '/apis/demo.protean.dev/v1/namespaces/demo/webapps/shop/status', 200],
    ['PATCH', '/apis/demo.protean.dev/v1/namespaces/demo/webapps/shop', 200],
    ['GET', '/api/v1/configmaps?limit=500', 200],
    ['GET', '/api/v1/configmaps?watch=1', 200],
    ['PATCH', '/api/v1/namespaces/demo/configmaps/shop-env?fieldManager=ctl', 201],
    ['PATCH', '/api/v1/namespaces/other/configmaps/blog-env?fieldManager=ctl', 403, RBAC_DENIED('patch', 'configmaps', 'other')],
    ['POST', '/api/v1/namespaces/demo/events', 201],
    ['GET', '/apis/coordination.k8s.io/v1/namespaces/ctl/leases/ctl-leader', 200],
    ['PUT', '/apis/coordination.k8s.io/v1/namespaces/ctl/leases/ctl-leader', 200],
    ['POST', '/apis/coordination.k8s.io/v1/namespaces/ctl/leases', 201],
    ['POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', 201],
  ];
  for (const [method, path, status, body] of answers) log.record(method, path, status, body);
  return log;
}
