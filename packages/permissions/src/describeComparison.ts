import { describeKubeAccess } from '@protean/transport/internal';
import type { MissingAccess, RbacComparison, UnusedGrant } from './compareWithRbac.js';

function qualified(group: string | undefined, resource: string): string {
  return group === undefined || group === '' ? resource : `${resource}.${group}`;
}

/** One missing access as a line: `patch configmaps in namespace demo (refused)`, `list namespaces cluster-wide`. */
export function describeMissing(m: MissingAccess): string {
  return `${describeKubeAccess(m)}${m.denied ? ' (refused)' : ''}`;
}

/** One unused grant as a line: `delete leases.coordination.k8s.io (Role ns/ctl-leases)`, `* on * (wide, ClusterRole ctl)`. */
export function describeUnused(u: UnusedGrant): string {
  const what = u.nonResourceURL !== undefined ? `path ${u.nonResourceURL}` : qualified(u.apiGroup, u.resource ?? '');
  return `${u.verb} ${what} (${u.wide ? 'wide, ' : ''}${u.role})`;
}

/**
 * A comparison as lines a test can assert empty and a person can read:
 * `missing: <access>` for each access no rule grants, then
 * `unused: <grant>` for each grant nothing used.
 *
 * ```ts
 * expect(describeComparison(compareWithRbac(used, yaml, { serviceAccount }))).toEqual([]);
 * ```
 */
export function describeComparison(comparison: Pick<RbacComparison, 'missing' | 'unused'>): string[] {
  return [
    ...comparison.missing.map((m) => `missing: ${describeMissing(m)}`),
    ...comparison.unused.map((u) => `unused: ${describeUnused(u)}`),
  ];
}
