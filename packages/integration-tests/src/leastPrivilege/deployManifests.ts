// Reads a generated project's `deploy/` kustomize base the way
// `kubectl kustomize` renders it, for the subset of kustomization fields
// a generated base uses (resources, namespace, labels); any other field is
// refused by name, so a richer base fails loudly instead of being applied
// half-rendered.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';

/** One Kubernetes object of a manifest, as plain JSON. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; [key: string]: unknown };
  [key: string]: unknown;
}

/** A kustomization field this reader does not render. */
export class UnsupportedKustomizationError extends Error {
  override readonly name = 'UnsupportedKustomizationError';
  constructor(
    readonly file: string,
    readonly field: string,
  ) {
    super(`${file}: the kustomization field "${field}" is not supported by this reader (supported: resources, namespace, labels)`);
  }
}

const SUPPORTED = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'labels']);
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'PriorityClass',
  'StorageClass',
  'PersistentVolume',
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
]);

/** Whether objects of `kind` live in no namespace. */
export function isClusterScoped(kind: string): boolean {
  return CLUSTER_SCOPED.has(kind);
}

/** Parses a multi-document YAML string into objects (empty documents dropped). */
export function parseManifests(text: string, source = 'yaml'): Manifest[] {
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`${source}: ${doc.errors[0]!.message}`);
      return doc.toJS() as Manifest | null;
    })
    .filter((o): o is Manifest => o !== null && typeof o === 'object');
}

/** Objects as one multi-document YAML string. */
export function toYaml(objects: readonly Manifest[]): string {
  return objects.map((o) => stringify(o)).join('---\n');
}

interface Kustomization {
  resources?: string[];
  namespace?: string;
  labels?: { pairs?: Record<string, string>; includeSelectors?: boolean }[];
  [key: string]: unknown;
}

/**
 * Every object of the kustomization in `dir` (a directory holding
 * `kustomization.yaml`), in resource order, with the namespace and labels
 * transformations applied as kustomize applies them.
 */
export function readKustomization(dir: string): Manifest[] {
  const file = join(dir, 'kustomization.yaml');
  const k = parseManifests(readFileSync(file, 'utf8'), file)[0] as unknown as Kustomization;
  for (const field of Object.keys(k)) if (!SUPPORTED.has(field)) throw new UnsupportedKustomizationError(file, field);
  const objects: Manifest[] = [];
  for (const resource of k.resources ?? []) {
    const path = join(dir, resource);
    if (statSync(path).isDirectory()) objects.push(...readKustomization(path));
    else objects.push(...parseManifests(readFileSync(path, 'utf8'), path));
  }
  for (const o of objects) {
    if (k.namespace !== undefined) setNamespace(o, k.namespace);
    for (const l of k.labels ?? []) {
      if (l.includeSelectors === true) throw new UnsupportedKustomizationError(file, 'labels.includeSelectors');
      o.metadata.labels = { ...o.metadata.labels, ...l.pairs };
    }
  }
  return objects;
}

function setNamespace(o: Manifest, namespace: string): void {
  if (!isClusterScoped(o.kind)) o.metadata.namespace = namespace;
  if (o.kind === 'RoleBinding' || o.kind === 'ClusterRoleBinding') {
    for (const s of (o['subjects'] ?? []) as { kind: string; namespace?: string }[]) {
      if (s.kind === 'ServiceAccount') s.namespace = namespace;
    }
  }
}
