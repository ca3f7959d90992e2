import { describe, expect, it } from '@jest/globals';
import { parseAllDocuments } from 'yaml';
import { permissionsUsed } from './permissionsUsed.js';
import { controllerAccesses } from './controllerAccesses.testkit.js';
import { parseRbacManifests } from './parseRbacManifests.js';
import { rbacRules, toRbacYaml } from './toRbacYaml.js';

describe('toRbacYaml', () => {
  it('puts accesses only ever made in the namespace in a Role and the rest in a ClusterRole, leaving out what everyone may do', () => {
    const used = permissionsUsed(controllerAccesses());
    expect(rbacRules(used, 'ctl')).toEqual({
      role: [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] }],
      clusterRole: [
        { apiGroups: [''], resources: ['configmaps'], verbs: ['list', 'watch', 'create', 'patch'] },
        { apiGroups: [''], resources: ['events'], verbs: ['create'] },
        { apiGroups: ['demo.protean.dev'], resources: ['webapps'], verbs: ['list', 'watch', 'patch'] },
        { apiGroups: ['demo.protean.dev'], resources: ['webapps/status'], verbs: ['update'] },
      ],
    });
    // Seen from demo: what was only done there (resources with the same verbs share a rule).
    expect(rbacRules(used, 'demo').role).toEqual([
      { apiGroups: [''], resources: ['configmaps', 'events'], verbs: ['create'] },
      { apiGroups: ['demo.protean.dev'], resources: ['webapps'], verbs: ['patch'] },
      { apiGroups: ['demo.protean.dev'], resources: ['webapps/status'], verbs: ['update'] },
    ]);
  });

  it('prints the Role, ClusterRole and their bindings to the ServiceAccount as YAML', () => {
    const text = toRbacYaml(permissionsUsed(controllerAccesses()), { name: 'ctl', namespace: 'ctl', serviceAccount: 'runner' });
    expect(text.startsWith('# The permissions a running controller used')).toBe(true);
    const docs = parseAllDocuments(text).map((d) => d.toJS() as { kind: string; metadata: unknown; subjects?: unknown; roleRef?: unknown });
    expect(docs.map((d) => [d.kind, d.metadata])).toEqual([
      ['Role', { name: 'ctl', namespace: 'ctl' }],
      ['RoleBinding', { name: 'ctl', namespace: 'ctl' }],
      ['ClusterRole', { name: 'ctl' }],
      ['ClusterRoleBinding', { name: 'ctl' }],
    ]);
    expect(docs[1]?.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'ctl' });
    expect(docs[3]?.subjects).toEqual([{ kind: 'ServiceAccount', name: 'runner', namespace: 'ctl' }]);
    expect(text).toContain(`  - apiGroups:
      - ""
    resources:
      - configmaps
    verbs:
      - list
      - watch
      - create
      - patch
`);
  });

  it('leaves out a role without rules, and puts non-resource URLs nobody else grants in the ClusterRole', () => {
    const text = toRbacYaml(
      {
        resources: [],
        nonResourceUrls: [
          { path: '/version', verbs: ['get'], denied: [], grantedToEveryone: true },
          { path: '/metrics', verbs: ['get'], denied: [], grantedToEveryone: false },
        ],
      },
      { name: 'ctl', namespace: 'ctl' },
    );
    const docs = parseAllDocuments(text).map((d) => d.toJS() as { kind: string; rules?: unknown });
    expect(docs.map((d) => d.kind)).toEqual(['ClusterRole', 'ClusterRoleBinding']);
    expect(docs[0]?.rules).toEqual([{ nonResourceURLs: ['/metrics'], verbs: ['get'] }]);
    expect(toRbacYaml({ resources: [], nonResourceUrls: [] }, { name: 'ctl', namespace: 'ctl' })).toContain('# Nothing else was used.');
  });

  it('refuses names that are not Kubernetes object names, naming the option', () => {
    const used = { resources: [], nonResourceUrls: [] };
    expect(() => toRbacYaml(used, { name: 'Ctl', namespace: 'ctl' })).toThrow(
      'toRbacYaml: options.name must be a Kubernetes object name, got "Ctl"',
    );
    expect(() => toRbacYaml(used, { name: 'ctl', namespace: '' })).toThrow('options.namespace');
    expect(() => toRbacYaml(used, { name: 'ctl', namespace: 'ctl', serviceAccount: 'a b' })).toThrow('options.serviceAccount');
  });
});

describe('toRbacYaml and parseRbacManifests: names YAML 1.1 would not read as strings', () => {
  it('quotes on, no, y and off, so kube-apiserver reads them as the names they are, and reads them back as written', () => {
    const text = toRbacYaml(permissionsUsed(controllerAccesses()), { name: 'on', namespace: 'no', serviceAccount: 'y' });
    expect(text).toContain('name: "on"');
    expect(text).toContain('namespace: "no"');
    expect(text).toContain('name: "y"');
    // As YAML 1.1 reads it (kube-apiserver, kubectl): strings, not booleans.
    const docs = parseAllDocuments(text, { version: '1.1' }).map((d) => d.toJS() as { metadata: { name: unknown; namespace?: unknown } });
    expect(docs.length).toBeGreaterThanOrEqual(2);
    expect(docs.every((d) => d.metadata.name === 'on' && (d.metadata.namespace === undefined || d.metadata.namespace === 'no'))).toBe(true);
    const parsed = parseRbacManifests(text, undefined);
    expect(parsed.roles.length).toBeGreaterThan(0);
    expect(parsed.roles.every((r) => r.name === 'on' && (r.kind === 'ClusterRole' || r.namespace === 'no'))).toBe(true);
    expect(parsed.bindings.flatMap((b) => b.subjects)).toContainEqual({ kind: 'ServiceAccount', name: 'y', namespace: 'no' });
  });

  it('refuses a manifest whose name YAML 1.1 reads as a boolean, naming the field, as kube-apiserver would refuse it', () => {
    const manifest = 'apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: ctl\n  namespace: off\nrules: []\n';
    expect(() => parseRbacManifests(manifest, undefined)).toThrow(/metadata\.namespace: expected a string, got boolean false .*quote it/);
  });
});
