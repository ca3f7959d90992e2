import { describe, expect, it } from '@jest/globals';
import type { Manifest } from './deployManifests.js';
import {
  accessResourceName,
  describeGrant,
  grantsOf,
  UnenumerableRuleError,
  withExtraGrant,
  withoutGrantIn,
  type Grant,
} from './rbacVariants.js';

const role = (kind: 'Role' | 'ClusterRole', rules: unknown[], namespace = 'ops'): Manifest => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind,
  metadata: kind === 'Role' ? { name: 'ctl', namespace } : { name: 'ctl' },
  rules,
});
const sa: Manifest = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'ctl', namespace: 'ops' } };

const triples = (objects: Manifest[]): string[] => grantsOf(objects).map((g) => `${g.role}: ${describeGrant(g)}`);

describe('grantsOf', () => {
  it('enumerates every verb of every resource of every group, once per role, skipping other kinds', () => {
    const objects = [
      sa,
      role('ClusterRole', [
        { apiGroups: ['example.com'], resources: ['widgets', 'widgets/status'], verbs: ['get', 'patch'] },
        { apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get'] },
      ]),
      role('Role', [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get'], resourceNames: ['lock'] }]),
    ];
    expect(triples(objects)).toEqual([
      'ClusterRole ctl: get widgets.example.com',
      'ClusterRole ctl: patch widgets.example.com',
      'ClusterRole ctl: get widgets/status.example.com',
      'ClusterRole ctl: patch widgets/status.example.com',
      'Role ops/ctl: get leases.coordination.k8s.io',
    ]);
    expect(grantsOf(objects)[4]!.resourceNames).toEqual(['lock']);
  });

  it('refuses wildcards and non-resource URLs by name', () => {
    const wildcard = (): unknown => grantsOf([role('ClusterRole', [{ apiGroups: [''], resources: ['*'], verbs: ['get'] }])]);
    expect(wildcard).toThrow(UnenumerableRuleError);
    expect(wildcard).toThrow('ClusterRole ctl: the rule {"apiGroups":[""],"resources":["*"],"verbs":["get"]} grants "*" resources');
    expect(() => grantsOf([role('ClusterRole', [{ apiGroups: [''], resources: ['pods'], verbs: ['*'] }])])).toThrow(
      'grants "*" verbs: not least privilege',
    );
    expect(() => grantsOf([role('ClusterRole', [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }])])).toThrow('non-resource URLs');
  });
});

describe('withoutGrantIn', () => {
  const objects = [
    sa,
    role('ClusterRole', [{ apiGroups: ['', 'apps'], resources: ['configmaps', 'secrets'], verbs: ['get', 'list', 'watch'] }]),
    role('Role', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]),
  ];

  it('removes exactly one (group, resource, verb) of the named role and keeps every other grant', () => {
    for (const grant of grantsOf(objects)) {
      const after = triples(withoutGrantIn(objects, grant));
      const expected = triples(objects).filter((t) => t !== `${grant.role}: ${describeGrant(grant)}`);
      expect(after.sort()).toEqual(expected.sort());
    }
  });

  it('removes the grant from every rule of the role that has it, and drops a rule left with no verbs', () => {
    const twice = [
      role('Role', [
        { apiGroups: [''], resources: ['events'], verbs: ['create'] },
        { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
      ]),
    ];
    const grant = grantsOf(twice).find((g) => g.verb === 'create') as Grant;
    expect(withoutGrantIn(twice, grant)[0]!['rules']).toEqual([{ apiGroups: [''], resources: ['events'], verbs: ['patch'] }]);
  });

  it('leaves the input unchanged', () => {
    const before = JSON.stringify(objects);
    withoutGrantIn(objects, grantsOf(objects)[0]!);
    expect(JSON.stringify(objects)).toBe(before);
  });
});

describe('withExtraGrant', () => {
  it('adds one rule to the named role only', () => {
    const objects = [role('ClusterRole', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]), role('Role', [])];
    const after = withExtraGrant(objects, { role: 'ClusterRole ctl', apiGroup: '', resource: 'configmaps', verb: 'delete' });
    expect(triples(after)).toEqual(['ClusterRole ctl: get configmaps', 'ClusterRole ctl: delete configmaps']);
  });
});

describe('accessResourceName', () => {
  it('names a resource as the access log does: resource.group, then the subresource', () => {
    expect(accessResourceName({ apiGroup: '', resource: 'configmaps' })).toBe('configmaps');
    expect(accessResourceName({ apiGroup: 'example.com', resource: 'widgets' })).toBe('widgets.example.com');
    expect(accessResourceName({ apiGroup: 'example.com', resource: 'widgets/status' })).toBe('widgets.example.com/status');
  });
});
