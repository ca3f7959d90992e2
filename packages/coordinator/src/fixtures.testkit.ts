import type { GroupVersionResource, NamespacedName } from '@protean/core';

/** GVRs and instances shared by the coordinator tests. */
export const webapps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
export const databases: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'databases' };
export const deployments: GroupVersionResource = { group: 'apps', version: 'v1', resource: 'deployments' };
export const services: GroupVersionResource = { group: '', version: 'v1', resource: 'services' };
export const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };

export const app1: NamespacedName = { namespace: 'default', name: 'app1' };
export const app2: NamespacedName = { namespace: 'default', name: 'app2' };

/** How `EnqueueRecorder.keys()` prints an instance of `webapps`. */
export const APP1 = 'demo.protean.dev/v1/webapps default/app1';
export const APP2 = 'demo.protean.dev/v1/webapps default/app2';
