import { describe, expect, it } from '@jest/globals';
import { compareWithRbac } from './compareWithRbac.js';
import { permissionsUsed } from './permissionsUsed.js';
import { controllerAccesses } from './controllerAccesses.testkit.js';
import { toRbacYaml } from './toRbacYaml.js';

const SA = { serviceAccount: { namespace: 'ctl', name: 'ctl' } };
const used = () => permissionsUsed(controllerAccesses());

const CLUSTER_ROLE = (rules: string): string => `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: ctl }
rules:
${rules}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: ctl }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ctl }
subjects: [{ kind: ServiceAccount, name: ctl, namespace: ctl }]
`;
const LEASE_ROLE = `---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: { name: ctl, namespace: ctl }
rules:
  - { apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get, create, update] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: ctl, namespace: ctl }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: ctl }
subjects: [{ kind: ServiceAccount, name: ctl }]
`;
const EXACT_RULES = `  - { apiGroups: [""], resources: [configmaps], verbs: [list, watch, create, patch] }
  - { apiGroups: [""], resources: [events], verbs: [create] }
  - { apiGroups: [demo.protean.dev], resources: [webapps], verbs: [list, watch, patch] }
  - { apiGroups: [demo.protean.dev], resources: [webapps/status], verbs: [update] }`;

describe('compareWithRbac', () => {
  it('finds nothing missing or unused in what toRbacYaml printed for the same accesses', () => {
    const result = compareWithRbac(used(), toRbacYaml(used(), { name: 'ctl', namespace: 'ctl' }), SA);
    expect(result).toEqual({
      missing: [],
      unused: [],
      excluded: ['create selfsubjectaccessreviews.authorization.k8s.io', 'get path /apis/demo.protean.dev/v1', 'get path /version'],
      unresolved: [],
    });
  });

  it('names each used access a rule stopped granting, with its namespace and whether the server refused it', () => {
    const result = compareWithRbac(
      used(),
      CLUSTER_ROLE(EXACT_RULES.replace('list, watch, create, patch', 'list, watch, create')) + LEASE_ROLE,
      SA,
    );
    expect(result.missing).toEqual([
      { kind: 'resource', verb: 'patch', group: '', resource: 'configmaps', namespace: 'demo', denied: false },
      { kind: 'resource', verb: 'patch', group: '', resource: 'configmaps', namespace: 'other', denied: true },
    ]);
    expect(result.unused).toEqual([]);
  });

  it('does not count a Role in another namespace, a binding of another subject, or a ClusterRole bound in one namespace elsewhere', () => {
    const result = compareWithRbac(
      used(),
      CLUSTER_ROLE(EXACT_RULES) +
        LEASE_ROLE.replace(/namespace: ctl/g, 'namespace: elsewhere') +
        `---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: other-sa, namespace: ctl }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: leases }
subjects: [{ kind: ServiceAccount, name: someone-else, namespace: ctl }]
`,
      SA,
    );
    expect(result.missing.map((m) => (m.kind === 'resource' ? `${m.verb} ${m.resource} ${m.namespace}` : m.path))).toEqual([
      'get leases ctl',
      'create leases ctl',
      'update leases ctl',
    ]);
  });

  it('names each granted group, resource and verb nothing used, with the role and binding that grant it', () => {
    const result = compareWithRbac(
      used(),
      CLUSTER_ROLE(`${EXACT_RULES}\n  - { apiGroups: [""], resources: [secrets, configmaps], verbs: [get, delete] }`) + LEASE_ROLE,
      SA,
    );
    expect(result.missing).toEqual([]);
    expect(result.unused).toEqual(
      ['secrets|get', 'secrets|delete', 'configmaps|get', 'configmaps|delete'].map((k) => {
        const [resource, verb] = k.split('|');
        return { role: 'ClusterRole ctl', binding: 'ClusterRoleBinding ctl', apiGroup: '', resource, verb, wide: false };
      }),
    );
  });

  it('counts * verbs, resources and groups as granting everything, and always reports them as wide', () => {
    const result = compareWithRbac(
      used(),
      CLUSTER_ROLE(`  - { apiGroups: ["*"], resources: ["*"], verbs: ["*"] }\n  - { nonResourceURLs: ["/metrics*"], verbs: [get] }`),
      SA,
    );
    expect(result.missing).toEqual([]);
    expect(result.unused).toEqual([
      { role: 'ClusterRole ctl', binding: 'ClusterRoleBinding ctl', apiGroup: '*', resource: '*', verb: '*', wide: true },
      { role: 'ClusterRole ctl', binding: 'ClusterRoleBinding ctl', nonResourceURL: '/metrics*', verb: 'get', wide: true },
    ]);
    const verbs = compareWithRbac(used(), CLUSTER_ROLE(`  - { apiGroups: [""], resources: [configmaps, events], verbs: ["*"] }`), SA);
    expect(verbs.unused.filter((u) => u.wide).map((u) => `${u.resource} ${u.verb}`)).toEqual(['configmaps *', 'events *']);
    expect(verbs.missing.map((m) => (m.kind === 'resource' ? `${m.resource}` : m.path))).not.toContain('configmaps');
  });

  it('matches */status rules to every status subresource', () => {
    const result = compareWithRbac(used(), CLUSTER_ROLE(EXACT_RULES.replace('[webapps/status]', '["*/status"]')) + LEASE_ROLE, SA);
    expect(result.missing).toEqual([]);
    expect(result.unused.map((u) => [u.resource, u.wide])).toEqual([['*/status', true]]);
  });

  it('takes the ServiceAccount as its user name or as a member of its groups, and counts resourceNames as granting', () => {
    const rules = `${EXACT_RULES}\n  - { apiGroups: [coordination.k8s.io], resources: [leases], resourceNames: [ctl-leader], verbs: [get, create, update] }`;
    for (const subject of [
      '{ kind: User, name: "system:serviceaccount:ctl:ctl" }',
      '{ kind: Group, name: "system:serviceaccounts:ctl" }',
      '{ kind: Group, name: "system:serviceaccounts" }',
    ]) {
      const text = CLUSTER_ROLE(rules).replace('{ kind: ServiceAccount, name: ctl, namespace: ctl }', subject);
      expect(compareWithRbac(used(), text, SA)).toMatchObject({ missing: [], unused: [] });
    }
  });

  it('names bindings whose role is not in the manifests', () => {
    const result = compareWithRbac(
      used(),
      `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: ctl-view }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view }
subjects: [{ kind: ServiceAccount, name: ctl, namespace: ctl }]
`,
      SA,
    );
    expect(result.unresolved).toEqual(['ClusterRoleBinding ctl-view → ClusterRole view']);
    expect(result.missing.length).toBeGreaterThan(0);
  });

  it('needs the ServiceAccount', () => {
    expect(() => compareWithRbac(used(), '', { serviceAccount: { namespace: 'ctl', name: '' } })).toThrow(
      'compareWithRbac: options.serviceAccount must be { namespace, name }',
    );
  });
});
