import { describe, expect, it } from '@jest/globals';
import { AccessLog } from '@protean/transport';
import { compareWithRbac } from './compareWithRbac.js';
import { describeComparison } from './describeComparison.js';
import { permissionsUsed } from './permissionsUsed.js';

const RBAC = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: ctl }
rules:
  - { apiGroups: [''], resources: [configmaps], verbs: [get] }
  - { apiGroups: [coordination.k8s.io], resources: [leases], verbs: [delete] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: ctl }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ctl }
subjects: [{ kind: ServiceAccount, name: ctl, namespace: sys }]
`;

describe('describeComparison', () => {
  it('names every missing access and every unused grant, one line each', () => {
    const log = new AccessLog({ now: () => 1_000 });
    log.record('GET', '/api/v1/namespaces/demo/configmaps/a', 200);
    log.record('PATCH', '/api/v1/namespaces/demo/configmaps/a', 403);
    log.record('PATCH', '/apis/x.dev/v1/namespaces/demo/things/t/status', 200);
    expect(describeComparison(compareWithRbac(permissionsUsed(log), RBAC, { serviceAccount: { namespace: 'sys', name: 'ctl' } }))).toEqual([
      'missing: patch configmaps in namespace demo (refused)',
      'missing: patch things.x.dev/status in namespace demo',
      'unused: delete leases.coordination.k8s.io (ClusterRole ctl)',
    ]);
  });
});
