import { gvrKey, type GroupVersionResource } from '@protean/core';
import type { ResourceDefinition } from './types.js';

/**
 * A {@link ResourceDefinition} with every default filled in; what the store
 * and the HTTP layer work with.
 */
export interface ServedResource extends GroupVersionResource {
  readonly kind: string;
  readonly listKind: string;
  readonly singular: string;
  readonly namespaced: boolean;
  readonly hasStatusSubresource: boolean;
  readonly shortNames: readonly string[];
  readonly tracksGeneration: boolean;
  readonly deleteReturnsObject: boolean;
  readonly allowUnconditionalUpdate: boolean;
  readonly builtin: boolean;
  /** A custom resource's structural schema, enforced on writes; undefined: anything goes. */
  readonly schema: Readonly<Record<string, unknown>> | undefined;
  /** `group/version`, or `version` for the core group. */
  readonly apiVersion: string;
  /** {@link gvrKey} of this resource. */
  readonly key: string;
}

/** Thrown by `registerResource` for a definition that cannot be served. */
export class ResourceDefinitionError extends Error {
  override readonly name = 'ResourceDefinitionError';
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Validates `def` and fills in its defaults. */
export function toServedResource(def: ResourceDefinition): ServedResource {
  for (const field of ['version', 'resource', 'kind'] as const) {
    if (typeof def[field] !== 'string' || def[field] === '') {
      throw new ResourceDefinitionError(`resource definition ${JSON.stringify(def)}: ${field} must be a non-empty string`);
    }
  }
  if (!DNS_LABEL.test(def.resource)) {
    throw new ResourceDefinitionError(`resource definition: resource ${JSON.stringify(def.resource)} must be a lower-case DNS label`);
  }
  if (typeof def.group !== 'string') {
    throw new ResourceDefinitionError(`resource definition for ${def.resource}: group must be a string ("" for core)`);
  }
  const gvr = { group: def.group, version: def.version, resource: def.resource };
  return {
    ...gvr,
    kind: def.kind,
    listKind: def.listKind ?? `${def.kind}List`,
    singular: def.singular ?? def.kind.toLowerCase(),
    namespaced: def.namespaced,
    hasStatusSubresource: def.hasStatusSubresource ?? false,
    shortNames: [...(def.shortNames ?? [])],
    tracksGeneration: def.tracksGeneration ?? true,
    deleteReturnsObject: def.deleteReturnsObject ?? false,
    allowUnconditionalUpdate: def.allowUnconditionalUpdate ?? false,
    builtin: def.builtin ?? false,
    schema: def.schema,
    apiVersion: def.group === '' ? def.version : `${def.group}/${def.version}`,
    key: gvrKey(gvr),
  };
}
