import { gvrKey, type GroupVersionResource } from '../gvr.js';

/**
 * What `ctx.get` and `ctx.list` reject with for a GVR whose informer keeps
 * metadata only (or that no informer watches): nothing registered asks for
 * its full objects. The message says how to opt in.
 */
export class ObjectNotCachedError extends Error {
  override readonly name = 'ObjectNotCachedError';
  readonly gvr: GroupVersionResource;
  /** The index `ctx.list` asked for that no registration declared, when that is what is missing. */
  readonly index: string | undefined;

  constructor(gvr: GroupVersionResource, index?: string) {
    const key = gvrKey(gvr);
    super(
      index === undefined
        ? `cannot read ${key} from the object cache: no registered parent caches its full objects; ` +
            `register the parent with { cache: [${describe(gvr)}] } (DynamicController.register's third argument), ` +
            `or read it with a KubeClient`
        : `cannot list ${key} by index ${JSON.stringify(index)}: no registration declared that index; register the parent with ` +
            `{ cache: [{ gvr: ${describe(gvr)}, indexes: { ${JSON.stringify(index)}: (obj) => [...] } }] } ('owner' is built in)`,
    );
    this.gvr = gvr;
    this.index = index;
  }
}

function describe(gvr: GroupVersionResource): string {
  return `{ group: '${gvr.group}', version: '${gvr.version}', resource: '${gvr.resource}' }`;
}
