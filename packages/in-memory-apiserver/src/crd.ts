import { ruleCompileCauses } from './crdRules.js';
import { isJsonObject } from './mergePatch.js';
import { invalid, type FieldCause } from './statusErrors.js';
import type { KubeObject, ResourceDefinition } from './types.js';

/** The GVR under which CustomResourceDefinitions are served. */
export const CRD_GVR = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' } as const;

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/**
 * The resource a CustomResourceDefinition object makes servable: its
 * storage version (`storage: true`), scope, names and status subresource.
 * Throws 422 Invalid naming the bad field.
 *
 * Easy to get wrong: only the storage version is served (no conversion
 * between versions), and it is served even when `served: false`.
 */
export function crdToDefinition(crd: KubeObject): ResourceDefinition {
  const name = str(crd.metadata.name);
  const causes: FieldCause[] = [];
  const spec = isJsonObject(crd['spec']) ? crd['spec'] : {};
  const names = isJsonObject(spec['names']) ? spec['names'] : {};
  const group = str(spec['group']);
  const plural = str(names['plural']);
  const kind = str(names['kind']);
  const scope = str(spec['scope']);
  const versions = Array.isArray(spec['versions']) ? (spec['versions'] as unknown[]).filter(isJsonObject) : [];
  const storage = versions.filter((v) => v['storage'] === true);
  if (group === '') causes.push({ field: 'spec.group', reason: 'FieldValueRequired', message: 'Required value' });
  else if (!group.includes('.')) {
    causes.push({
      field: 'spec.group',
      reason: 'FieldValueInvalid',
      message: `Invalid value: "${group}": should be a domain with at least one dot`,
    });
  }
  if (plural === '') causes.push({ field: 'spec.names.plural', reason: 'FieldValueRequired', message: 'Required value' });
  if (kind === '') causes.push({ field: 'spec.names.kind', reason: 'FieldValueRequired', message: 'Required value' });
  if (scope !== 'Namespaced' && scope !== 'Cluster') {
    causes.push({
      field: 'spec.scope',
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: "${scope}": supported values: "Cluster", "Namespaced"`,
    });
  }
  if (storage.length !== 1) {
    causes.push({
      field: 'spec.versions',
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${storage.length}: must have exactly one version marked as storage version`,
    });
  }
  if (plural !== '' && group !== '' && name !== `${plural}.${group}`) {
    causes.push({
      field: 'metadata.name',
      reason: 'FieldValueInvalid',
      message: `Invalid value: "${name}": must be spec.names.plural+"."+spec.group`,
    });
  }
  for (const v of versions) {
    const schema = isJsonObject(v['schema']) ? v['schema']['openAPIV3Schema'] : undefined;
    // kube-apiserver names the schema of a CRD with one version without the version (`spec.validation`).
    const at = versions.length === 1 ? 'spec.validation.openAPIV3Schema' : `spec.versions[${versions.indexOf(v)}].schema.openAPIV3Schema`;
    if (isJsonObject(schema)) causes.push(...ruleCompileCauses(schema, at));
  }
  if (causes.length > 0) throw invalid(CRD_GVR.group, 'CustomResourceDefinition', name, causes);
  const version = storage[0] as Record<string, unknown>;
  const subresources = isJsonObject(version['subresources']) ? version['subresources'] : {};
  const def: ResourceDefinition = {
    group,
    version: str(version['name']),
    resource: plural,
    kind,
    namespaced: scope === 'Namespaced',
    hasStatusSubresource: isJsonObject(subresources['status']),
    tracksGeneration: true,
    deleteReturnsObject: false,
    allowUnconditionalUpdate: false,
  };
  if (str(names['listKind']) !== '') def.listKind = str(names['listKind']);
  if (str(names['singular']) !== '') def.singular = str(names['singular']);
  if (Array.isArray(names['shortNames'])) def.shortNames = (names['shortNames'] as unknown[]).map(str);
  const schema = isJsonObject(version['schema']) ? version['schema']['openAPIV3Schema'] : undefined;
  if (isJsonObject(schema)) def.schema = schema;
  return def;
}

/**
 * The status the real API server's controllers give an accepted CRD:
 * NamesAccepted and Established true, accepted names, stored versions.
 * Keeps the transition times of conditions already true.
 */
export function crdStatus(crd: KubeObject, def: ResourceDefinition, now: string): Record<string, unknown> {
  const previous =
    isJsonObject(crd['status']) && Array.isArray(crd['status']['conditions'])
      ? (crd['status']['conditions'] as unknown[]).filter(isJsonObject)
      : [];
  const since = (type: string): string => {
    const c = previous.find((p) => p['type'] === type && p['status'] === 'True');
    return c !== undefined && typeof c['lastTransitionTime'] === 'string' ? c['lastTransitionTime'] : now;
  };
  const acceptedNames: Record<string, unknown> = {
    plural: def.resource,
    singular: def.singular ?? def.kind.toLowerCase(),
    kind: def.kind,
    listKind: def.listKind ?? `${def.kind}List`,
  };
  if (def.shortNames !== undefined && def.shortNames.length > 0) acceptedNames['shortNames'] = def.shortNames;
  return {
    conditions: [
      {
        type: 'NamesAccepted',
        status: 'True',
        lastTransitionTime: since('NamesAccepted'),
        reason: 'NoConflicts',
        message: 'no conflicts found',
      },
      {
        type: 'Established',
        status: 'True',
        lastTransitionTime: since('Established'),
        reason: 'InitialNamesAccepted',
        message: 'the initial names have been accepted',
      },
    ],
    acceptedNames,
    storedVersions: [def.version],
  };
}
