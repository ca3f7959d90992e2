import { describe, expect, it } from '@jest/globals';
import { parseRbacManifests } from './parseRbacManifests.js';
import { RbacManifestError } from './RbacManifestError.js';

describe('parseRbacManifests', () => {
  it('reads Roles, ClusterRoles and bindings from documents and List items, skips other kinds and empty documents', () => {
    const parsed = parseRbacManifests(
      `---
apiVersion: v1
kind: ServiceAccount
metadata: { name: ctl, namespace: ctl }
---
---
apiVersion: v1
kind: List
items:
  - apiVersion: rbac.authorization.k8s.io/v1
    kind: Role
    metadata: { name: r }
    rules: [{ apiGroups: [""], resources: [configmaps], verbs: [get] }]
  - apiVersion: rbac.authorization.k8s.io/v1
    kind: RoleBinding
    metadata: { name: r, namespace: other }
    roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: r }
    subjects: [{ kind: ServiceAccount, name: ctl, namespace: ctl }]
`,
      'ctl',
    );
    expect(parsed).toEqual({
      roles: [
        {
          kind: 'Role',
          name: 'r',
          namespace: 'ctl',
          rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: [], nonResourceURLs: [], verbs: ['get'] }],
        },
      ],
      bindings: [
        {
          kind: 'RoleBinding',
          name: 'r',
          namespace: 'other',
          roleRef: { kind: 'Role', name: 'r' },
          subjects: [{ kind: 'ServiceAccount', name: 'ctl', namespace: 'ctl' }],
        },
      ],
    });
  });

  it.each([
    ['kind: Role\nmetadata: { name: r\n', 'document 1: it is not valid YAML'],
    [
      'a: 1\n---\nkind: ClusterRole\nmetadata: {name: c}\nrules: [{ verbs: get }]\n',
      'document 2 (ClusterRole c), rule 1: verbs must be a list of strings',
    ],
    ['kind: ClusterRole\nmetadata: {name: c}\nrules: [{ resources: [x] }]\n', 'document 1 (ClusterRole c), rule 1: a rule needs verbs'],
    ['kind: ClusterRole\nmetadata: {name: c}\nrules: {}\n', 'rules is not a list'],
    ['kind: ClusterRole\nmetadata: {}\n', 'document 1: ClusterRole without metadata.name'],
    ['kind: Role\nmetadata: {name: r}\n', 'Role without metadata.namespace, and no default namespace given'],
    ['kind: ClusterRoleBinding\nmetadata: {name: b}\n', 'document 1 (ClusterRoleBinding b): roleRef must name a Role or ClusterRole'],
    ['kind: ClusterRoleBinding\nmetadata: {name: b}\nroleRef: {kind: Role, name: r}\n', 'a ClusterRoleBinding cannot refer to a Role'],
    [
      'kind: ClusterRoleBinding\nmetadata: {name: b}\nroleRef: {kind: ClusterRole, name: r}\nsubjects: [{kind: User}]\n',
      'subject 1: a subject needs a kind and a name',
    ],
    ['- a\n- b\n', 'document 1: expected a Kubernetes object, got a list'],
  ])('refuses %j naming the document and the problem', (text, message) => {
    let thrown: unknown;
    try {
      parseRbacManifests(text, undefined);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(RbacManifestError);
    expect((thrown as Error).name).toBe('RbacManifestError');
    expect((thrown as Error).message).toContain(message);
  });
});
