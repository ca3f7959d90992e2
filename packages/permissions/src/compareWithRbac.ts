import type { KubeNonResourceAccess, KubeResourceAccess } from '@protean/transport/internal';
import { RESOURCES_GRANTED_TO_EVERYONE } from './grantedToEveryone.js';
import { parseRbacManifests, type ManifestBinding, type ManifestRule } from './parseRbacManifests.js';
import { rbacResourceName, type PermissionsUsed } from './permissionsUsed.js';

/** Options of {@link compareWithRbac}. */
export interface CompareOptions {
  /** The ServiceAccount the controller runs as. */
  readonly serviceAccount: { readonly namespace: string; readonly name: string };
  /** Namespace of Roles and RoleBindings written without one; default the ServiceAccount's. */
  readonly defaultNamespace?: string;
}

/** A used access the manifests do not grant: the access, whether the server refused it the last time (as the manifests predict, when they are what the cluster has), and for a resource a `list` no request made, needed for the informers' LIST fallback (`UsedVerb.impliedBy`). */
export type MissingAccess =
  | (KubeResourceAccess & { readonly denied: boolean; readonly impliedBy?: 'watch' })
  | (KubeNonResourceAccess & { readonly denied: boolean });

/** A granted (API group, resource, verb), or (URL, verb), that no recorded access used. */
export interface UnusedGrant {
  /** `ClusterRole ctl` or `Role ctl/ctl-leases` (namespace/name). */
  readonly role: string;
  /** The binding that grants it to the ServiceAccount: `ClusterRoleBinding ctl`, `RoleBinding ctl/ctl`. */
  readonly binding: string;
  /** The namespace the binding grants it in; unset: cluster-wide. */
  readonly namespace?: string;
  readonly apiGroup?: string;
  readonly resource?: string;
  readonly nonResourceURL?: string;
  readonly verb: string;
  /**
   * The rule has a `*` in its API groups, resources, URLs or verbs: it
   * grants everything of that kind, more than any recorded access can use,
   * so it is always reported (also when some access used part of it).
   */
  readonly wide: boolean;
}

/** {@link compareWithRbac}'s answer. */
export interface RbacComparison {
  /** Used accesses the manifests' Roles and ClusterRoles bound to the ServiceAccount do not grant. */
  readonly missing: readonly MissingAccess[];
  /** Granted rules (expanded per API group, resource and verb) that no recorded access used; wildcards marked `wide`. */
  readonly unused: readonly UnusedGrant[];
  /**
   * Accesses left out of the comparison because every authenticated user
   * may make them: discovery, `/version`, `/openapi` and health URLs
   * (`get path /version`), and creating the self-reviews.
   */
  readonly excluded: readonly string[];
  /** Bindings of the ServiceAccount whose role is not in the manifests (a built-in ClusterRole such as `view`): not evaluated. */
  readonly unresolved: readonly string[];
}

interface Grant {
  readonly role: string;
  readonly binding: string;
  /** Unset: cluster-wide. */
  readonly namespace: string | undefined;
  readonly rule: ManifestRule;
  /** A ClusterRole through a ClusterRoleBinding: the only way non-resource URLs are granted. */
  readonly clusterWide: boolean;
}

/**
 * Compares what a controller used with RBAC manifests (multi-document YAML,
 * e.g. a kustomize build or the output of {@link toRbacYaml}), both ways:
 * `missing` lists each used access (verb, resource, namespace) that no
 * rule of a Role or ClusterRole bound to `serviceAccount` grants there;
 * `unused` lists each granted (API group, resource, verb) no recorded
 * access used. A binding counts when a subject is the ServiceAccount (or
 * its `system:serviceaccount:<ns>:<name>` user, or the groups
 * `system:serviceaccounts`, `system:serviceaccounts:<ns>`,
 * `system:authenticated`).
 *
 * Easy to get wrong: object names are not recorded, so a rule limited by
 * `resourceNames` counts as granting its verbs for every object; and an
 * access that did not happen yet shows its rule as unused.
 */
export function compareWithRbac(used: PermissionsUsed, manifestsYamlText: string, options: CompareOptions): RbacComparison {
  const sa = options.serviceAccount;
  if (sa === undefined || typeof sa.name !== 'string' || typeof sa.namespace !== 'string' || sa.name === '' || sa.namespace === '') {
    throw new TypeError(`compareWithRbac: options.serviceAccount must be { namespace, name }, got ${JSON.stringify(sa)}`);
  }
  const manifests = parseRbacManifests(manifestsYamlText, options.defaultNamespace ?? sa.namespace);
  const grants: Grant[] = [];
  const unresolved: string[] = [];
  for (const b of manifests.bindings) {
    if (!b.subjects.some((s) => isServiceAccount(s, b, sa))) continue;
    const bindingName = b.namespace === undefined ? `${b.kind} ${b.name}` : `${b.kind} ${b.namespace}/${b.name}`;
    const role = manifests.roles.find(
      (r) => r.kind === b.roleRef.kind && r.name === b.roleRef.name && (r.kind === 'ClusterRole' || r.namespace === b.namespace),
    );
    if (role === undefined) {
      unresolved.push(`${bindingName} → ${b.roleRef.kind} ${b.roleRef.name}`);
      continue;
    }
    const roleName = role.namespace === undefined ? `${role.kind} ${role.name}` : `${role.kind} ${role.namespace}/${role.name}`;
    for (const rule of role.rules) {
      grants.push({ role: roleName, binding: bindingName, namespace: b.namespace, rule, clusterWide: b.kind === 'ClusterRoleBinding' });
    }
  }

  const missing: MissingAccess[] = [];
  const excluded: string[] = [];
  const usedBy = new Map<Grant, Set<string>>(); // the "group|resource|verb" / "url|verb" of each grant that something used
  const mark = (g: Grant, key: string): void => {
    let s = usedBy.get(g);
    if (s === undefined) usedBy.set(g, (s = new Set()));
    s.add(key);
  };
  for (const r of used.resources) {
    const name = rbacResourceName(r);
    for (const v of r.verbs) {
      if (v.verb === 'create' && r.subresource === undefined && RESOURCES_GRANTED_TO_EVERYONE.has(`${r.group}|${r.resource}`)) {
        excluded.push(`create ${r.resource}${r.group === '' ? '' : `.${r.group}`}`);
        continue;
      }
      for (const ns of v.namespaces) {
        let granted = false;
        for (const g of grants) {
          if (!inScope(g, ns) || !matchesResource(g.rule, r.group, name, r.subresource, v.verb)) continue;
          granted = true;
          for (const group of g.rule.apiGroups) {
            for (const res of g.rule.resources) {
              for (const verb of g.rule.verbs) {
                if (
                  matchesResource({ ...g.rule, apiGroups: [group], resources: [res], verbs: [verb] }, r.group, name, r.subresource, v.verb)
                ) {
                  mark(g, `${group}|${res}|${verb}`);
                }
              }
            }
          }
        }
        if (!granted) {
          missing.push({
            kind: 'resource',
            verb: v.verb,
            group: r.group,
            resource: r.resource,
            ...(r.subresource === undefined ? {} : { subresource: r.subresource }),
            ...(ns === '' ? {} : { namespace: ns }),
            denied: v.denied.includes(ns),
            ...(v.impliedBy === undefined ? {} : { impliedBy: v.impliedBy }),
          });
        }
      }
    }
  }
  for (const u of used.nonResourceUrls) {
    for (const verb of u.verbs) {
      const covering = grants.filter((g) => g.clusterWide && matchesUrl(g.rule, u.path, verb));
      for (const g of covering) {
        for (const url of g.rule.nonResourceURLs) {
          for (const rv of g.rule.verbs) {
            if (matchesUrl({ ...g.rule, nonResourceURLs: [url], verbs: [rv] }, u.path, verb)) mark(g, `${url}|${rv}`);
          }
        }
      }
      if (u.grantedToEveryone) excluded.push(`${verb} path ${u.path}`);
      else if (covering.length === 0) missing.push({ kind: 'nonResource', verb, path: u.path, denied: u.denied.includes(verb) });
    }
  }

  const unused: UnusedGrant[] = [];
  for (const g of grants) {
    const seen = usedBy.get(g);
    const scope = g.namespace === undefined ? {} : { namespace: g.namespace };
    for (const group of g.rule.apiGroups) {
      for (const res of g.rule.resources) {
        for (const verb of g.rule.verbs) {
          const wide = group === '*' || res === '*' || res.startsWith('*/') || verb === '*';
          if (wide || !seen?.has(`${group}|${res}|${verb}`)) {
            unused.push({ role: g.role, binding: g.binding, ...scope, apiGroup: group, resource: res, verb, wide });
          }
        }
      }
    }
    for (const url of g.rule.nonResourceURLs) {
      for (const verb of g.rule.verbs) {
        const wide = url.endsWith('*') || verb === '*';
        if (wide || !seen?.has(`${url}|${verb}`))
          unused.push({ role: g.role, binding: g.binding, ...scope, nonResourceURL: url, verb, wide });
      }
    }
  }
  return { missing, unused, excluded, unresolved };
}

function isServiceAccount(s: ManifestBinding['subjects'][number], b: ManifestBinding, sa: CompareOptions['serviceAccount']): boolean {
  switch (s.kind) {
    case 'ServiceAccount':
      return s.name === sa.name && (s.namespace ?? b.namespace) === sa.namespace;
    case 'User':
      return s.name === `system:serviceaccount:${sa.namespace}:${sa.name}`;
    case 'Group':
      return (
        s.name === 'system:serviceaccounts' || s.name === `system:serviceaccounts:${sa.namespace}` || s.name === 'system:authenticated'
      );
    default:
      return false;
  }
}

/** A RoleBinding grants in its namespace only; `ns` `''` is a cluster-wide access. */
function inScope(g: Grant, ns: string): boolean {
  return g.namespace === undefined || g.namespace === ns;
}

function matchesResource(rule: ManifestRule, group: string, name: string, subresource: string | undefined, verb: string): boolean {
  if (!rule.verbs.some((v) => v === '*' || v === verb)) return false;
  if (!rule.apiGroups.some((g) => g === '*' || g === group)) return false;
  return rule.resources.some((r) => r === '*' || r === name || (subresource !== undefined && r === `*/${subresource}`));
}

function matchesUrl(rule: ManifestRule, path: string, verb: string): boolean {
  if (!rule.verbs.some((v) => v === '*' || v === verb)) return false;
  return rule.nonResourceURLs.some((u) => u === path || (u.endsWith('*') && path.startsWith(u.slice(0, -1))));
}
