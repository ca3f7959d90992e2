import type { V1CustomResourceDefinition } from '@kubernetes/client-node';
import { gvrKey, type GroupVersionResource } from '@protean/core';

/** The API group of the example's parent kinds. */
export const DEMO_GROUP = 'demo.protean.dev';

/**
 * A parent kind the example defines at runtime: its names and the GVR the
 * controller registers. Both kinds share one shape (`spec.message`,
 * `spec.replicas`), so one handler serves them all.
 */
export interface ParentKind {
  readonly kind: string;
  /** Lower-case singular, used in log lines (`webapp team-a/shop ...`). */
  readonly singular: string;
  readonly gvr: GroupVersionResource;
}

function parentKind(kind: string, plural: string): ParentKind {
  return Object.freeze({
    kind,
    singular: kind.toLowerCase(),
    gvr: Object.freeze({ group: DEMO_GROUP, version: 'v1alpha1', resource: plural }),
  });
}

/** The first parent kind: a web application rendered into a ConfigMap. */
export const WEBAPP = parentKind('WebApp', 'webapps');

/** The second parent kind, registered while the controller runs. */
export const WEBSITE = parentKind('WebSite', 'websites');

/** Every parent kind the example knows, for looking one up by GVR. */
export const PARENT_KINDS: readonly ParentKind[] = Object.freeze([WEBAPP, WEBSITE]);

/** The child resource every instance owns and counts. */
export const CONFIGMAPS: GroupVersionResource = Object.freeze({ group: '', version: 'v1', resource: 'configmaps' });

/** The parent kind of `gvr`, or undefined for a GVR the example does not define. */
export function kindOf(gvr: GroupVersionResource): ParentKind | undefined {
  const key = gvrKey(gvr);
  return PARENT_KINDS.find((k) => gvrKey(k.gvr) === key);
}

/** `apiVersion` of a parent kind's objects (`demo.protean.dev/v1alpha1`). */
export function apiVersionOf(kind: ParentKind): string {
  return `${kind.gvr.group}/${kind.gvr.version}`;
}

/**
 * The CustomResourceDefinition of a parent kind: namespaced, one served and
 * stored version with a status subresource, and a schema that rejects a
 * non-string `message` or a negative `replicas` on a real cluster.
 *
 * Easy to get wrong: every status field the handler writes must be in the
 * schema, or the API server prunes it (with a `Warning`, which
 * `@protean/client` logs). It is sent as plain JSON (`ensureCrd`), so schema
 * extensions take their wire spelling (`x-kubernetes-...`), not client-node's
 * model spelling.
 */
export function crdManifest(kind: ParentKind): V1CustomResourceDefinition {
  const { group, version, resource } = kind.gvr;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${resource}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { kind: kind.kind, plural: resource, singular: kind.singular, listKind: `${kind.kind}List` },
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
            { name: 'ConfigMaps', type: 'integer', jsonPath: '.status.configMapCount' },
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    message: { type: 'string' },
                    replicas: { type: 'integer', minimum: 0 },
                  },
                },
                // Every field the handler writes, declared: a status field missing here is pruned by the API server.
                status: {
                  type: 'object',
                  properties: {
                    observedGeneration: { type: 'integer' },
                    configMapCount: { type: 'integer' },
                    conditions: {
                      type: 'array',
                      items: {
                        type: 'object',
                        required: ['type', 'status'],
                        properties: {
                          type: { type: 'string' },
                          status: { type: 'string' },
                          reason: { type: 'string' },
                          message: { type: 'string' },
                          lastTransitionTime: { type: 'string' },
                          observedGeneration: { type: 'integer' },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
}
