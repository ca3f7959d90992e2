import type { CoreV1Api, V1ConfigMap } from '@kubernetes/client-node';
import { isNotFound } from '@protean/core';
import { requestOptions } from './requestOptions.js';
import type { WebAppObject, WebAppSpec } from './WebAppObject.js';

/** What {@link applyConfigMap} had to do. */
export type ConfigMapChange = 'created' | 'updated' | 'unchanged';

/** The label tying ConfigMaps to an instance; the handler counts every ConfigMap carrying it. */
export const APP_LABEL = 'app';

/** Name of the ConfigMap an instance owns: `<instance>-config`. */
export function configMapName(instanceName: string): string {
  return `${instanceName}-config`;
}

/** The data an instance's spec renders to. */
export function configMapData(spec: WebAppSpec): Record<string, string> {
  return { message: spec.message, replicas: String(spec.replicas) };
}

/**
 * Creates the instance's ConfigMap, or brings an existing one back to the
 * spec: its data, the `app=<instance>` label (other labels are kept) and an
 * owner reference, so a real cluster's garbage collector deletes it with
 * the instance.
 *
 * Easy to get wrong: the update is a PUT of the object just read, so a
 * concurrent writer makes it fail with 409 Conflict instead of being
 * overwritten; the controller retries the reconcile.
 */
export async function applyConfigMap(
  core: CoreV1Api,
  owner: WebAppObject,
  spec: WebAppSpec,
  signal: AbortSignal,
): Promise<ConfigMapChange> {
  const { namespace, name: ownerName } = owner.metadata;
  const name = configMapName(ownerName);
  const data = configMapData(spec);
  const ownerRef = { apiVersion: owner.apiVersion, kind: owner.kind, name: ownerName, uid: owner.metadata.uid, controller: true };
  let current: V1ConfigMap;
  try {
    current = await core.readNamespacedConfigMap({ namespace, name }, requestOptions(signal));
  } catch (err) {
    if (!isNotFound(err)) throw err;
    const body: V1ConfigMap = { metadata: { name, namespace, labels: { [APP_LABEL]: ownerName }, ownerReferences: [ownerRef] }, data };
    await core.createNamespacedConfigMap({ namespace, body }, requestOptions(signal));
    return 'created';
  }
  const metadata = current.metadata ?? {};
  const labelled = metadata.labels?.[APP_LABEL] === ownerName;
  const owned = metadata.ownerReferences?.some((r) => r.uid === ownerRef.uid) ?? false;
  if (labelled && owned && sameData(current.data, data)) return 'unchanged';
  const body: V1ConfigMap = {
    ...current,
    metadata: {
      ...metadata,
      labels: { ...metadata.labels, [APP_LABEL]: ownerName },
      ownerReferences: owned ? (metadata.ownerReferences ?? []) : [...(metadata.ownerReferences ?? []), ownerRef],
    },
    data,
  };
  await core.replaceNamespacedConfigMap({ namespace, name, body }, requestOptions(signal));
  return 'updated';
}

function sameData(a: Record<string, string> | undefined, b: Record<string, string>): boolean {
  const keys = Object.keys(b);
  return a !== undefined && Object.keys(a).length === keys.length && keys.every((k) => a[k] === b[k]);
}
