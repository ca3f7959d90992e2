// The RBAC of a manifest set, one verb of one resource at a time: what the
// least-privilege test removes, rule by rule, so a rule added to the
// shipped Role or ClusterRole later is covered without touching the test.
import type { Manifest } from './deployManifests.js';

/** One rule of a Role or ClusterRole. */
export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  verbs: string[];
  nonResourceURLs?: string[];
}

/** One permission a Role or ClusterRole grants: a verb on a resource (sub-resources as `widgets/status`). */
export interface Grant {
  /** `Role ns/name` or `ClusterRole name`. */
  role: string;
  apiGroup: string;
  resource: string;
  verb: string;
  resourceNames: readonly string[];
}

/** A role rule the verb-by-verb removal cannot take apart. */
export class UnenumerableRuleError extends Error {
  override readonly name = 'UnenumerableRuleError';
  constructor(
    readonly role: string,
    readonly rule: PolicyRule,
    why: string,
  ) {
    super(`${role}: the rule ${JSON.stringify(rule)} ${why}`);
  }
}

const isRole = (o: Manifest): boolean => o.apiVersion === 'rbac.authorization.k8s.io/v1' && (o.kind === 'Role' || o.kind === 'ClusterRole');

/** `Role ns/name` or `ClusterRole name`. */
export function roleName(o: Manifest): string {
  return o.kind === 'Role' ? `Role ${o.metadata.namespace ?? ''}/${o.metadata.name}` : `ClusterRole ${o.metadata.name}`;
}

/**
 * The resource as the access log and /readyz name it: `configmaps`,
 * `widgets.example.com`, `widgets.example.com/status` (kubectl's
 * resource.group, then the subresource).
 */
export function accessResourceName(g: Pick<Grant, 'resource' | 'apiGroup'>): string {
  const [resource, subresource] = g.resource.split('/', 2) as [string, string | undefined];
  return `${resource}${g.apiGroup === '' ? '' : `.${g.apiGroup}`}${subresource === undefined ? '' : `/${subresource}`}`;
}

/** `verb resource.group` as RBAC denials say it (`get configmaps`, `patch widgets/status.example.com`). */
export function describeGrant(g: Pick<Grant, 'verb' | 'resource' | 'apiGroup'>): string {
  return `${g.verb} ${g.resource}${g.apiGroup === '' ? '' : `.${g.apiGroup}`}`;
}

function rulesOf(o: Manifest): PolicyRule[] {
  return (o['rules'] ?? []) as PolicyRule[];
}

function checkEnumerable(role: string, rule: PolicyRule): void {
  if (rule.nonResourceURLs !== undefined) throw new UnenumerableRuleError(role, rule, 'grants non-resource URLs');
  for (const [field, values] of [
    ['verbs', rule.verbs],
    ['resources', rule.resources],
    ['apiGroups', rule.apiGroups],
  ] as const) {
    if (values === undefined || values.length === 0) throw new UnenumerableRuleError(role, rule, `has no ${field}`);
    if (values.includes('*')) throw new UnenumerableRuleError(role, rule, `grants "*" ${field}: not least privilege`);
  }
}

/** Every (verb, resource, group) each Role and ClusterRole of a manifest set grants, once per role, in manifest order. */
export function grantsOf(objects: readonly Manifest[]): Grant[] {
  const grants = new Map<string, Grant>();
  for (const o of objects.filter(isRole)) {
    const role = roleName(o);
    for (const rule of rulesOf(o)) {
      checkEnumerable(role, rule);
      for (const apiGroup of rule.apiGroups!)
        for (const resource of rule.resources!)
          for (const verb of rule.verbs) {
            const key = `${role}\n${describeGrant({ verb, resource, apiGroup })}`;
            if (!grants.has(key)) grants.set(key, { role, apiGroup, resource, verb, resourceNames: rule.resourceNames ?? [] });
          }
    }
  }
  return [...grants.values()];
}

/**
 * A copy of `rule` minus one (group, resource, verb): the rules that grant
 * everything else it granted (RBAC rules are cross products, so it may take
 * up to three).
 */
function withoutGrant(rule: PolicyRule, g: Grant): PolicyRule[] {
  const groups = rule.apiGroups!;
  const resources = rule.resources!;
  if (!groups.includes(g.apiGroup) || !resources.includes(g.resource) || !rule.verbs.includes(g.verb)) return [rule];
  const out: PolicyRule[] = [];
  const otherResources = resources.filter((r) => r !== g.resource);
  if (otherResources.length > 0) out.push({ ...rule, resources: otherResources });
  const otherGroups = groups.filter((a) => a !== g.apiGroup);
  if (otherGroups.length > 0) out.push({ ...rule, apiGroups: otherGroups, resources: [g.resource] });
  const otherVerbs = rule.verbs.filter((v) => v !== g.verb);
  if (otherVerbs.length > 0) out.push({ ...rule, apiGroups: [g.apiGroup], resources: [g.resource], verbs: otherVerbs });
  return out;
}

/** A copy of `objects` whose role `grant.role` no longer grants `grant` (everything else unchanged). */
export function withoutGrantIn(objects: readonly Manifest[], grant: Grant): Manifest[] {
  return objects.map((o) => {
    if (!isRole(o) || roleName(o) !== grant.role) return structuredClone(o);
    return { ...structuredClone(o), rules: rulesOf(o).flatMap((r) => withoutGrant(structuredClone(r), grant)) };
  });
}

/** A copy of `objects` whose role `role` also grants `verb` on `resource` in `apiGroup` (one more rule). */
export function withExtraGrant(objects: readonly Manifest[], grant: Omit<Grant, 'resourceNames'>): Manifest[] {
  return objects.map((o) => {
    if (!isRole(o) || roleName(o) !== grant.role) return structuredClone(o);
    return {
      ...structuredClone(o),
      rules: [...rulesOf(o), { apiGroups: [grant.apiGroup], resources: [grant.resource], verbs: [grant.verb] }],
    };
  });
}
