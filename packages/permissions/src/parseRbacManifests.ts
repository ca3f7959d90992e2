import { parseAllDocuments } from 'yaml';
import { RbacManifestError } from './RbacManifestError.js';

/** A rule of a Role or ClusterRole as written in a manifest (every list present, maybe empty). */
export interface ManifestRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly resourceNames: readonly string[];
  readonly nonResourceURLs: readonly string[];
  readonly verbs: readonly string[];
}

/** A Role or ClusterRole of the manifests. */
export interface ManifestRole {
  readonly kind: 'Role' | 'ClusterRole';
  readonly name: string;
  /** Set for a Role. */
  readonly namespace?: string;
  readonly rules: readonly ManifestRule[];
}

/** A RoleBinding or ClusterRoleBinding of the manifests. */
export interface ManifestBinding {
  readonly kind: 'RoleBinding' | 'ClusterRoleBinding';
  readonly name: string;
  /** Set for a RoleBinding. */
  readonly namespace?: string;
  readonly roleRef: { readonly kind: 'Role' | 'ClusterRole'; readonly name: string };
  readonly subjects: readonly { readonly kind: string; readonly name: string; readonly namespace?: string }[];
}

/** The RBAC objects of a multi-document YAML text. */
export interface RbacManifests {
  readonly roles: readonly ManifestRole[];
  readonly bindings: readonly ManifestBinding[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads the Roles, ClusterRoles, RoleBindings and ClusterRoleBindings of
 * `text` (any number of YAML documents, `kind: List` items included; other
 * kinds are skipped). A Role or RoleBinding without `metadata.namespace`
 * gets `defaultNamespace` (as `kubectl apply -n` or a kustomization's
 * `namespace:` would give it).
 *
 * Throws {@link RbacManifestError} naming the document for YAML that does
 * not parse and for RBAC objects of the wrong shape (a rule whose `verbs`
 * is not a list of strings, a binding without `roleRef`, ...).
 */
export function parseRbacManifests(text: string, defaultNamespace: string | undefined): RbacManifests {
  if (typeof text !== 'string') throw new TypeError(`parseRbacManifests: expected YAML text, got ${typeof text}`);
  const roles: ManifestRole[] = [];
  const bindings: ManifestBinding[] = [];
  // YAML 1.1, as kube-apiserver and kubectl read manifests: `on`, `no`, `y` unquoted are booleans there.
  parseAllDocuments(text, { version: '1.1' }).forEach((doc, index) => {
    const where = `document ${index + 1}`;
    if ('errors' in doc && doc.errors.length > 0) {
      throw new RbacManifestError(where, `it is not valid YAML: ${doc.errors[0]!.message}`, { cause: doc.errors[0] });
    }
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) return;
    if (!isObj(value))
      throw new RbacManifestError(where, `expected a Kubernetes object, got ${Array.isArray(value) ? 'a list' : typeof value}`);
    const items = value['kind'] === 'List' && Array.isArray(value['items']) ? (value['items'] as unknown[]) : [value];
    items.forEach((item, i) => {
      const at = items.length === 1 && item === value ? where : `${where}, item ${i + 1}`;
      if (!isObj(item)) throw new RbacManifestError(at, 'expected a Kubernetes object');
      readObject(item, at, defaultNamespace, roles, bindings);
    });
  });
  return { roles, bindings };
}

function readObject(o: Obj, at: string, defaultNamespace: string | undefined, roles: ManifestRole[], bindings: ManifestBinding[]): void {
  const kind = o['kind'];
  if (kind !== 'Role' && kind !== 'ClusterRole' && kind !== 'RoleBinding' && kind !== 'ClusterRoleBinding') return;
  const apiVersion = o['apiVersion'];
  if (typeof apiVersion === 'string' && !apiVersion.startsWith('rbac.authorization.k8s.io/')) return;
  const meta = isObj(o['metadata']) ? o['metadata'] : {};
  notAScalarString(meta['name'], 'metadata.name', at);
  notAScalarString(meta['namespace'], 'metadata.namespace', at);
  const name = meta['name'];
  if (typeof name !== 'string' || name === '') throw new RbacManifestError(at, `${kind} without metadata.name`);
  const what = `${at} (${kind} ${name})`;
  let namespace: string | undefined;
  if (kind === 'Role' || kind === 'RoleBinding') {
    const ns = meta['namespace'] ?? defaultNamespace;
    if (typeof ns !== 'string' || ns === '')
      throw new RbacManifestError(what, `${kind} without metadata.namespace, and no default namespace given`);
    namespace = ns;
  }
  if (kind === 'Role' || kind === 'ClusterRole') {
    const rules = o['rules'] ?? [];
    if (!Array.isArray(rules)) throw new RbacManifestError(what, 'rules is not a list');
    roles.push({
      kind,
      name,
      ...(namespace === undefined ? {} : { namespace }),
      rules: rules.map((rule, i) => readRule(rule, `${what}, rule ${i + 1}`)),
    });
    return;
  }
  const ref = o['roleRef'];
  if (!isObj(ref) || (ref['kind'] !== 'Role' && ref['kind'] !== 'ClusterRole') || typeof ref['name'] !== 'string') {
    throw new RbacManifestError(what, 'roleRef must name a Role or ClusterRole (kind and name)');
  }
  if (kind === 'ClusterRoleBinding' && ref['kind'] === 'Role')
    throw new RbacManifestError(what, 'a ClusterRoleBinding cannot refer to a Role');
  const subjects = o['subjects'] ?? [];
  if (!Array.isArray(subjects)) throw new RbacManifestError(what, 'subjects is not a list');
  bindings.push({
    kind,
    name,
    ...(namespace === undefined ? {} : { namespace }),
    roleRef: { kind: ref['kind'], name: ref['name'] },
    subjects: subjects.map((s, i) => {
      if (isObj(s)) for (const field of ['kind', 'name', 'namespace']) notAScalarString(s[field], field, `${what}, subject ${i + 1}`);
      if (!isObj(s) || typeof s['kind'] !== 'string' || typeof s['name'] !== 'string') {
        throw new RbacManifestError(`${what}, subject ${i + 1}`, 'a subject needs a kind and a name');
      }
      const ns = s['namespace'];
      return { kind: s['kind'], name: s['name'], ...(typeof ns === 'string' && ns !== '' ? { namespace: ns } : {}) };
    }),
  });
}

/**
 * Refuses a boolean or number where a string belongs, saying why: YAML 1.1
 * (kube-apiserver's reading) takes `on`, `off`, `yes`, `no`, `y`, `n` and
 * numbers unquoted as such, and the server refuses the object.
 */
function notAScalarString(value: unknown, field: string, at: string): void {
  if (typeof value !== 'boolean' && typeof value !== 'number') return;
  throw new RbacManifestError(
    at,
    `${field}: expected a string, got ${typeof value} ${String(value)} (kube-apiserver reads YAML 1.1, where on, off, yes, no, y, n and numbers unquoted are not strings: quote it)`,
  );
}

function readRule(rule: unknown, at: string): ManifestRule {
  if (!isObj(rule)) throw new RbacManifestError(at, 'a rule must be an object');
  const list = (field: string): string[] => {
    const v = rule[field];
    if (v === undefined || v === null) return [];
    if (Array.isArray(v)) for (const x of v) notAScalarString(x, field, at);
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new RbacManifestError(at, `${field} must be a list of strings`);
    return v as string[];
  };
  const parsed = {
    apiGroups: list('apiGroups'),
    resources: list('resources'),
    resourceNames: list('resourceNames'),
    nonResourceURLs: list('nonResourceURLs'),
    verbs: list('verbs'),
  };
  if (parsed.verbs.length === 0) throw new RbacManifestError(at, 'a rule needs verbs');
  return parsed;
}
