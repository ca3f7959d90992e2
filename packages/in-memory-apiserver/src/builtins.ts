import type { KubeObject, ResourceDefinition } from './types.js';

/** The resources an {@link InMemoryApiServer} serves from the start unless `builtins: false`. */
export const BUILTIN_RESOURCES: readonly ResourceDefinition[] = [
  {
    group: '',
    version: 'v1',
    resource: 'namespaces',
    kind: 'Namespace',
    namespaced: false,
    hasStatusSubresource: true,
    shortNames: ['ns'],
    tracksGeneration: false,
    deleteReturnsObject: true,
    allowUnconditionalUpdate: true,
    builtin: true,
  },
  {
    group: '',
    version: 'v1',
    resource: 'configmaps',
    kind: 'ConfigMap',
    namespaced: true,
    shortNames: ['cm'],
    tracksGeneration: false,
    deleteReturnsObject: false,
    allowUnconditionalUpdate: true,
    builtin: true,
  },
  {
    group: '',
    version: 'v1',
    resource: 'secrets',
    kind: 'Secret',
    namespaced: true,
    tracksGeneration: false,
    deleteReturnsObject: false,
    allowUnconditionalUpdate: true,
    builtin: true,
  },
  {
    group: 'events.k8s.io',
    version: 'v1',
    resource: 'events',
    kind: 'Event',
    namespaced: true,
    shortNames: ['ev'],
    tracksGeneration: false,
    deleteReturnsObject: false,
    allowUnconditionalUpdate: true,
    builtin: true,
  },
  {
    group: 'coordination.k8s.io',
    version: 'v1',
    resource: 'leases',
    kind: 'Lease',
    namespaced: true,
    tracksGeneration: false,
    deleteReturnsObject: false,
    allowUnconditionalUpdate: false,
    builtin: true,
  },
  {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    resource: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    namespaced: false,
    hasStatusSubresource: true,
    shortNames: ['crd', 'crds'],
    tracksGeneration: true,
    deleteReturnsObject: true,
    allowUnconditionalUpdate: false,
    builtin: true,
  },
  {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    resource: 'validatingwebhookconfigurations',
    kind: 'ValidatingWebhookConfiguration',
    namespaced: false,
    tracksGeneration: true,
    deleteReturnsObject: false,
    allowUnconditionalUpdate: true,
    builtin: true,
  },
  {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    resource: 'mutatingwebhookconfigurations',
    kind: 'MutatingWebhookConfiguration',
    namespaced: false,
    tracksGeneration: true,
    deleteReturnsObject: false,
    allowUnconditionalUpdate: true,
    builtin: true,
  },
];

/**
 * What the real server adds to a new Namespace: the
 * `kubernetes.io/metadata.name` label, the `kubernetes` spec finalizer and
 * phase Active. Mutates `ns` (a private copy).
 */
export function defaultNamespace(ns: KubeObject): void {
  ns.metadata.labels = { ...(ns.metadata.labels ?? {}), 'kubernetes.io/metadata.name': ns.metadata.name };
  ns['spec'] = { finalizers: ['kubernetes'] };
  ns['status'] = { phase: 'Active' };
}

/** Secrets default `type` to Opaque, as the real server does. */
export function defaultSecret(secret: KubeObject): void {
  if (secret['type'] === undefined || secret['type'] === '') secret['type'] = 'Opaque';
}

/**
 * Folds a Secret's write-only `stringData` into base64 `data` (a key in
 * both takes the `stringData` value), as the real server does on every
 * write. Mutates `secret` (a private copy).
 */
export function foldStringData(secret: KubeObject): void {
  const stringData = secret['stringData'];
  if (stringData === undefined) return;
  delete secret['stringData'];
  if (stringData === null || typeof stringData !== 'object' || Array.isArray(stringData)) return;
  const data: Record<string, unknown> = { ...((secret['data'] as Record<string, unknown> | undefined) ?? {}) };
  for (const [k, v] of Object.entries(stringData)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
  secret['data'] = data;
}
