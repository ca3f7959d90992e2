import { gvrKey, type GroupVersionResource } from '../gvr.js';

/**
 * What `ctx.get` and `ctx.list` reject with for a GVR whose informer keeps
 * metadata only (or that no informer watches): nothing registered asks for
 * its full objects. The message says how to opt in.
 */
export class ObjectNotCachedError extends Error {
  override readonly name = 'ObjectNotCachedError';
  readonly gvr: GroupVersionResource;

  constructor(gvr: GroupVersionResource) {
    const key = gvrKey(gvr);
    super(
      `cannot read ${key} from the object cache: no registered parent caches its full objects; ` +
        `register the parent with { cache: [${describe(gvr)}] } (DynamicController.register's third argument), ` +
        `or read it with a KubeClient`,
    );
    this.gvr = gvr;
  }
}

function describe(gvr: GroupVersionResource): string {
  return `{ group: '${gvr.group}', version: '${gvr.version}', resource: '${gvr.resource}' }`;
}
