import { Document } from 'yaml';
import { RESOURCES_GRANTED_TO_EVERYONE } from './grantedToEveryone.js';
import { rbacResourceName, type PermissionsUsed } from './permissionsUsed.js';

/** Options of {@link toRbacYaml}. */
export interface RbacYamlOptions {
  /** Name of the Role, ClusterRole and their bindings. */
  readonly name: string;
  /** The controller's namespace: the Role, its binding and the ServiceAccount live there. */
  readonly namespace: string;
  /** The ServiceAccount bound; default `name`. */
  readonly serviceAccount?: string;
}

/** One RBAC policy rule. */
export interface PolicyRule {
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
  readonly verbs: readonly string[];
}

/** The rules of the Role (namespace-only accesses) and of the ClusterRole (the rest). */
export interface RbacRules {
  readonly role: readonly PolicyRule[];
  readonly clusterRole: readonly PolicyRule[];
}

const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/**
 * Splits what was used into a Role's rules (verbs used on a resource only
 * ever in `namespace`) and a ClusterRole's (used cluster-wide, on
 * cluster-scoped resources, or in other namespaces). Rules are grouped per
 * API group, resources with the same verbs in one rule, everything sorted,
 * so the output is stable. Non-resource URLs every authenticated user may
 * use (discovery, `/version`, `/openapi`, health) and the self-reviews are
 * left out; other non-resource URLs go to the ClusterRole.
 */
export function rbacRules(used: PermissionsUsed, namespace: string): RbacRules {
  const role = new Map<string, Map<string, Set<string>>>(); // group -> resource -> verbs
  const cluster = new Map<string, Map<string, Set<string>>>();
  const add = (target: Map<string, Map<string, Set<string>>>, group: string, resource: string, verb: string): void => {
    let g = target.get(group);
    if (g === undefined) target.set(group, (g = new Map()));
    let r = g.get(resource);
    if (r === undefined) g.set(resource, (r = new Set()));
    r.add(verb);
  };
  for (const r of used.resources) {
    const resource = rbacResourceName(r);
    for (const v of r.verbs) {
      if (v.verb === 'create' && r.subresource === undefined && RESOURCES_GRANTED_TO_EVERYONE.has(`${r.group}|${r.resource}`)) continue;
      const onlyHere = v.namespaces.length > 0 && v.namespaces.every((ns) => ns === namespace);
      add(onlyHere ? role : cluster, r.group, resource, v.verb);
    }
  }
  const clusterRules = rulesOf(cluster);
  const urls = used.nonResourceUrls.filter((u) => !u.grantedToEveryone);
  const byVerbs = new Map<string, string[]>();
  for (const u of urls) {
    const key = [...u.verbs].sort().join(',');
    byVerbs.set(key, [...(byVerbs.get(key) ?? []), u.path]);
  }
  for (const [verbs, paths] of [...byVerbs.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    clusterRules.push({ nonResourceURLs: paths.sort(), verbs: verbs.split(',') });
  }
  return { role: rulesOf(role), clusterRole: clusterRules };
}

/**
 * RBAC manifests granting exactly what was used: a Role in `namespace` and
 * a ClusterRole (see {@link rbacRules}), each with a binding to the
 * ServiceAccount `namespace/serviceAccount`, as one multi-document YAML
 * text. A role with no rules is left out with its binding.
 *
 * Easy to get wrong: it grants what was used *so far*, see
 * `permissionsUsed`; and a dynamic controller's ClusterRole grows with
 * every GVR its instances declare unless the watch manager's
 * `allowedResources` bounds them.
 */
export function toRbacYaml(used: PermissionsUsed, options: RbacYamlOptions): string {
  const { name, namespace } = options;
  const serviceAccount = options.serviceAccount ?? name;
  for (const [field, value] of [
    ['name', name],
    ['namespace', namespace],
    ['serviceAccount', serviceAccount],
  ] as const) {
    if (typeof value !== 'string' || !NAME.test(value) || value.length > 253) {
      throw new TypeError(`toRbacYaml: options.${field} must be a Kubernetes object name, got ${JSON.stringify(value)}`);
    }
  }
  const { role, clusterRole } = rbacRules(used, namespace);
  const subjects = [{ kind: 'ServiceAccount', name: serviceAccount, namespace }];
  const objects: unknown[] = [];
  if (role.length > 0) {
    objects.push(
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name, namespace }, rules: role },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name, namespace },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
        subjects,
      },
    );
  }
  if (clusterRole.length > 0) {
    objects.push(
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules: clusterRole },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
        subjects,
      },
    );
  }
  const header =
    ' The permissions a running controller used, as recorded on its connection (@protean/permissions).\n' +
    ' Left out: the non-resource URLs every authenticated user may read (discovery, /version, /openapi, health)\n' +
    ' and the self-reviews every authenticated user may create.';
  if (objects.length === 0) return `#${header.split('\n').join('\n#')}\n# Nothing else was used.\n`;
  return objects
    .map((o, i) => {
      // YAML 1.1, as kube-apiserver reads it: a name such as `on` or `no` is quoted, or it would be a boolean there.
      const doc = new Document(o, { version: '1.1' });
      if (i === 0) doc.commentBefore = header;
      return doc.toString({ lineWidth: 0 });
    })
    .join('---\n');
}

function rulesOf(target: Map<string, Map<string, Set<string>>>): PolicyRule[] {
  const rules: PolicyRule[] = [];
  for (const group of [...target.keys()].sort()) {
    const byVerbs = new Map<string, string[]>();
    for (const [resource, verbs] of target.get(group)!) {
      const key = orderVerbs([...verbs]).join(',');
      byVerbs.set(key, [...(byVerbs.get(key) ?? []), resource]);
    }
    const groupRules = [...byVerbs.entries()].map(([verbs, resources]) => ({
      apiGroups: [group],
      resources: resources.sort(),
      verbs: verbs.split(','),
    }));
    groupRules.sort((a, b) => (a.resources[0]! < b.resources[0]! ? -1 : 1));
    rules.push(...groupRules);
  }
  return rules;
}

const ORDER = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
function orderVerbs(verbs: string[]): string[] {
  return verbs.sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b));
}
