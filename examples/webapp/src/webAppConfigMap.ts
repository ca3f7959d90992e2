import type { Stored } from '@protean/client';
import type { WebAppObject, WebAppSpec } from './WebAppObject.js';

/** What one pass did to the instance's ConfigMap. */
export type ConfigMapChange = 'created' | 'updated' | 'unchanged';

/** The label tying ConfigMaps to an instance; the handler counts every ConfigMap carrying it. */
export const APP_LABEL = 'app';

/** A ConfigMap as the handler applies it and reads it back. */
export interface ConfigMapObject {
  apiVersion: 'v1';
  kind: 'ConfigMap';
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  data: Record<string, string>;
}

/** Name of the ConfigMap an instance owns: `<instance>-config`. */
export function configMapName(instanceName: string): string {
  return `${instanceName}-config`;
}

/** The data an instance's spec renders to. */
export function configMapData(spec: WebAppSpec): Record<string, string> {
  return { message: spec.message, replicas: String(spec.replicas) };
}

/**
 * The fields of the instance's ConfigMap the handler owns, as a server-side
 * apply intent: its name, the `app=<instance>` label and the data of the
 * spec. Labels and data keys other managers set are kept; the owner
 * reference is added by `applyOwned`.
 */
export function desiredConfigMap(owner: WebAppObject, spec: WebAppSpec): ConfigMapObject {
  const { namespace, name } = owner.metadata;
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: configMapName(name), namespace, labels: { [APP_LABEL]: name } },
    data: configMapData(spec),
  };
}

/**
 * What an apply did, from the ConfigMap before it and the one it returned:
 * none before is a create, the same resourceVersion is a no-op (the API
 * server does not write an apply that changes nothing).
 */
export function configMapChange(before: Stored<ConfigMapObject> | undefined, after: Stored<ConfigMapObject>): ConfigMapChange {
  if (before === undefined || before.metadata.uid !== after.metadata.uid) return 'created';
  return before.metadata.resourceVersion === after.metadata.resourceVersion ? 'unchanged' : 'updated';
}
