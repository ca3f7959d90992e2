import { beforeAll, describe, expect, it } from '@jest/globals';
import {
  InvalidGroupVersionResourceError,
  InvalidObjectNameError,
  type GroupVersionResource,
  type Handler,
  type WatchRequest,
} from '@protean/core';
import { WatchRequestError } from '@protean/coordinator';
import { waitFor } from '@protean/core/testing';
import { CONFIGMAPS } from './kinds.js';
import type { RealController } from './startRealController.js';

/**
 * GVRs that break Kubernetes' naming rules. Each one once became a URL:
 * `namespaces/default/configmaps` watched the ConfigMaps of `default` on a
 * real server (it decodes `%2F`), and `..` climbed out of the group
 * version once the URL was normalised.
 */
export const MALFORMED_GVRS: ReadonlyArray<readonly [string, GroupVersionResource, 'group' | 'version' | 'resource']> = [
  ['a path as resource', { group: '', version: 'v1', resource: 'namespaces/default/configmaps' }, 'resource'],
  ['an encoded path as resource', { group: '', version: 'v1', resource: 'namespaces%2Fdefault%2Fconfigmaps' }, 'resource'],
  ['".." as resource', { group: '', version: 'v1', resource: '..' }, 'resource'],
  ['"." as resource', { group: '', version: 'v1', resource: '.' }, 'resource'],
  ['a kind-cased resource', { group: '', version: 'v1', resource: 'ConfigMaps' }, 'resource'],
  ['an empty resource', { group: '', version: 'v1', resource: '' }, 'resource'],
  ['a subresource', { group: '', version: 'v1', resource: 'configmaps/status' }, 'resource'],
  ['a slash in the group', { group: 'a/b', version: 'v1', resource: 'things' }, 'group'],
  ['".." as group', { group: '..', version: 'v1', resource: 'configmaps' }, 'group'],
  ['a path in the version', { group: '', version: 'v1/..', resource: 'configmaps' }, 'version'],
  ['an empty version', { group: 'apps', version: '', resource: 'deployments' }, 'version'],
];

/** Watch requests a handler may make that break the rules on namespace or name instead. */
const MALFORMED_TARGETS: ReadonlyArray<readonly [string, Omit<WatchRequest, 'nodeId' | 'gvr'>, 'namespace' | 'name']> = [
  ['a namespace with a slash', { namespace: 'default/configmaps', name: 'x' }, 'namespace'],
  ['an upper-case namespace', { namespace: 'Default', name: 'x' }, 'namespace'],
  ['".." as name', { namespace: 'default', name: '..' }, 'name'],
  ['a name with a slash', { namespace: 'default', name: 'a/b' }, 'name'],
];

/** What {@link malformedGvrTests} needs from the server under test. */
export interface MalformedGvrTarget {
  /** A controller, started, over the server's real list/watch stack. */
  readonly rc: RealController;
  /** Namespace the trigger ConfigMap is created in (it exists). */
  readonly namespace: string;
  createConfigMap(name: string): Promise<void>;
  /** Paths of the requests the server received so far, where the target can tell. */
  requestPaths?(): string[];
}

/** `'pending'` unless `p` settled before the event loop got to I/O once: no network round trip fits in that. */
async function settledBeforeIo(p: Promise<unknown>): Promise<unknown> {
  return Promise.race([
    p.then(
      () => 'resolved',
      (err: unknown) => err,
    ),
    new Promise((resolve) => setImmediate(() => resolve('pending'))),
  ]);
}

/**
 * The malformed-GVR suite, for the in-memory API server and a real
 * kube-apiserver alike: `register` and `ctx.watcher.watch(...)` refuse every
 * GVR of {@link MALFORMED_GVRS} at once, quoting it, and nothing is left
 * running (no informer, no handler, no watch coordinator state).
 *
 * Easy to get wrong: `target` is read in the tests, so the caller sets it
 * up in a `beforeAll` of its own (and tears it down in an `afterAll`).
 */
export function malformedGvrTests(name: string, target: () => MalformedGvrTarget): void {
  describe(`malformed GVRs are refused at once: ${name}`, () => {
    let t: MalformedGvrTarget;

    beforeAll(() => {
      t = target();
    });

    it.each(MALFORMED_GVRS)('register refuses %s with InvalidGroupVersionResourceError, before any request', async (_what, gvr, field) => {
      const { controller, source } = t.rc;
      const before = t.requestPaths?.().length;
      let called = false;
      const handler: Handler = async () => {
        called = true;
      };
      const registering = controller.register(gvr, handler);
      const outcome = await settledBeforeIo(registering);
      expect(outcome).toBeInstanceOf(InvalidGroupVersionResourceError);
      const err = outcome as InvalidGroupVersionResourceError;
      expect(err.field).toBe(field);
      expect(err.value).toBe(gvr[field]);
      expect(err.message).toContain(`${field} ${JSON.stringify(gvr[field])}`);
      expect(controller.activeWatchCount()).toBe(0);
      expect(controller.registeredGVRs()).toEqual([]);
      expect(controller.informer(gvr)).toBeUndefined();
      expect(controller.hasSynced(gvr)).toBe(false);
      expect(source.createdFor(gvr)).toBe(0);
      expect(t.rc.watchCoordinator.instanceWatchCount()).toBe(0);
      if (before !== undefined) expect(t.requestPaths!().slice(before)).toEqual([]);
      expect(called).toBe(false);
    });

    it('ctx.watcher.watch(...) refuses every malformed GVR, namespace and name; only the parent informer runs', async () => {
      const { controller, watchCoordinator } = t.rc;
      const failures = new Map<string, unknown>();
      let reconciled = false;
      const handler: Handler = async (_req, ctx) => {
        for (const [what, gvr] of MALFORMED_GVRS) {
          failures.set(
            what,
            await ctx.watcher.watch({ nodeId: 'child', gvr, name: 'x', namespace: t.namespace }).then(
              () => 'accepted',
              (e: unknown) => e,
            ),
          );
        }
        for (const [what, target] of MALFORMED_TARGETS) {
          failures.set(
            what,
            await ctx.watcher.watch({ nodeId: 'child', gvr: CONFIGMAPS, ...target }).then(
              () => 'accepted',
              (e: unknown) => e,
            ),
          );
        }
        reconciled = true;
      };
      await t.createConfigMap('malformed-gvr-trigger');
      await controller.register(CONFIGMAPS, handler);
      await waitFor(() => reconciled, { timeoutMs: 30_000, message: 'the trigger ConfigMap to be reconciled' });

      for (const [what, gvr, field] of MALFORMED_GVRS) {
        const err = failures.get(what);
        expect(err).toBeInstanceOf(WatchRequestError);
        expect((err as Error).message).toContain(`${field} ${JSON.stringify(gvr[field])}`);
        expect((err as Error).cause).toBeInstanceOf(InvalidGroupVersionResourceError);
      }
      for (const [what, target, field] of MALFORMED_TARGETS) {
        const err = failures.get(what);
        expect(err).toBeInstanceOf(WatchRequestError);
        expect((err as Error).message).toContain(`invalid ${field} ${JSON.stringify(target[field])}`);
        expect((err as Error).cause).toBeInstanceOf(InvalidObjectNameError);
      }
      // The parent's informer and nothing else; no watch request was recorded.
      expect(controller.activeWatchCount()).toBe(1);
      expect(watchCoordinator.watchRequestCount()).toEqual({ scalar: 0, collection: 0 });
      expect(watchCoordinator.instanceWatchCount()).toBe(0);
      for (const [, gvr] of MALFORMED_GVRS) expect(t.rc.source.createdFor(gvr)).toBe(0);
      const paths = t.requestPaths?.() ?? [];
      expect(paths.filter((p) => !p.startsWith(`/api/v1/`) || p.split('/').length > 4)).toEqual([]);

      await controller.deregister(CONFIGMAPS);
      expect(controller.registeredGVRs()).toEqual([]);
      expect(controller.activeWatchCount()).toBe(0);
    });
  });
}
