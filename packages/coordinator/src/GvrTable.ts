import type { GroupVersionResource } from '@protean/core';

/**
 * A map keyed by GVR through nested maps (group, version, resource), so a
 * lookup on the event path builds no key string.
 * Internal to the package.
 */
export class GvrTable<T> {
  private readonly groups = new Map<string, Map<string, Map<string, T>>>();

  get(gvr: GroupVersionResource): T | undefined {
    return this.groups.get(gvr.group)?.get(gvr.version)?.get(gvr.resource);
  }

  set(gvr: GroupVersionResource, value: T): void {
    let versions = this.groups.get(gvr.group);
    if (versions === undefined) {
      versions = new Map();
      this.groups.set(gvr.group, versions);
    }
    let resources = versions.get(gvr.version);
    if (resources === undefined) {
      resources = new Map();
      versions.set(gvr.version, resources);
    }
    resources.set(gvr.resource, value);
  }

  delete(gvr: GroupVersionResource): void {
    const versions = this.groups.get(gvr.group);
    const resources = versions?.get(gvr.version);
    if (versions === undefined || resources === undefined || !resources.delete(gvr.resource)) return;
    if (resources.size === 0) versions.delete(gvr.version);
    if (versions.size === 0) this.groups.delete(gvr.group);
  }
}
