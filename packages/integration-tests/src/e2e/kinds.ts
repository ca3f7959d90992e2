import type { V1CustomResourceDefinition } from '@kubernetes/client-node';
import type { GroupVersionResource } from '@protean/core';

/** API group of the parent kinds the real-cluster tests define at runtime. */
export const E2E_GROUP = 'e2e.protean.dev';

/** A namespaced parent kind defined by a CRD created during a test. */
export interface E2eKind {
  readonly kind: string;
  readonly gvr: GroupVersionResource;
  /** The string fields of `spec` the schema keeps; default `['message']`. */
  readonly specFields?: readonly string[];
}

function e2eKind(kind: string, plural: string): E2eKind {
  return Object.freeze({ kind, gvr: Object.freeze({ group: E2E_GROUP, version: 'v1', resource: plural }) });
}

/** The first parent kind. */
export const WIDGETS = e2eKind('Widget', 'widgets');
/** A second parent kind, sharing the ConfigMap informer with {@link WIDGETS}. */
export const GADGETS = e2eKind('Gadget', 'gadgets');

/** The child resource every instance owns (scalar watch) and counts (collection watch). */
export const CONFIGMAPS: GroupVersionResource = Object.freeze({ group: '', version: 'v1', resource: 'configmaps' });

/**
 * The CRD of `kind`: namespaced, one served and stored version with a
 * status subresource, `spec.message` (or each of `kind.specFields`) a string.
 *
 * Easy to get wrong: client-node serializes the body through its model,
 * which drops keys it does not know; schema extensions must be spelled the
 * model's way (`x_kubernetes_preserve_unknown_fields`).
 */
export function crdManifest(kind: E2eKind): V1CustomResourceDefinition {
  const { group, version, resource } = kind.gvr;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: crdName(kind) },
    spec: {
      group,
      scope: 'Namespaced',
      names: { kind: kind.kind, plural: resource, singular: kind.kind.toLowerCase(), listKind: `${kind.kind}List` },
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: Object.fromEntries((kind.specFields ?? ['message']).map((field) => [field, { type: 'string' }])),
                },
                status: { type: 'object', x_kubernetes_preserve_unknown_fields: true },
              },
            },
          },
        },
      ],
    },
  };
}

/** `plural.group`, the name of the kind's CRD. */
export function crdName(kind: E2eKind): string {
  return `${kind.gvr.resource}.${kind.gvr.group}`;
}
