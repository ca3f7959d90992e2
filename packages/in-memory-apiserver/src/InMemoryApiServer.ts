import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { gvrKey, realClock, type GroupVersionResource } from '@protean/core';
import { Admission } from './Admission.js';
import { BUILTIN_RESOURCES } from './builtins.js';
import { FaultInjector } from './FaultInjector.js';
import { mergePatch } from './mergePatch.js';
import { ObjectStore, type ApplyOptions } from './ObjectStore.js';
import { objectKey, type ResourceTable } from './ResourceTable.js';
import { RequestHandler } from './RequestHandler.js';
import { routeNotFound } from './statusErrors.js';
import type { ApiServerFaults, InMemoryApiServerOptions, KubeObject, NewKubeObject, RequestRecord, ResourceDefinition } from './types.js';
import { WatchHub } from './WatchHub.js';

/** A private copy of a stored object (a JSON round trip is faster than structuredClone for plain JSON). */
function copy(obj: KubeObject): KubeObject {
  return JSON.parse(JSON.stringify(obj)) as KubeObject;
}

/** The bearer token {@link InMemoryApiServer.kubeConfig} puts in the user entry by default. */
export const DEFAULT_TEST_TOKEN = 'protean-test-token';

/**
 * An in-memory Kubernetes API server on a real loopback HTTP port, for fast
 * tests and demos: discovery, CRUD, list with selectors and consistent
 * pagination, metadata-only responses, watch with history replay and
 * bookmarks, CRDs that register resources, and fault hooks.
 *
 * The direct methods (`create`, `get`, ...) share the HTTP path's semantics
 * and throw {@link ApiError} (with the HTTP `code` and `Status` `body`) where
 * the HTTP path would answer an error; `get` and `delete` return undefined
 * for a missing object instead.
 *
 * Easy to get wrong: always `await server.stop()` (it closes every socket and
 * timer); and updates of custom resources need `metadata.resourceVersion`
 * unless the definition sets `allowUnconditionalUpdate`, as on a real cluster.
 */
export class InMemoryApiServer {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  readonly faults: ApiServerFaults;
  private tokens: ReadonlySet<string> | undefined;
  private stopped = false;

  private constructor(
    private readonly server: Server,
    private readonly sockets: Set<Socket>,
    private readonly store: ObjectStore,
    private readonly hub: WatchHub,
    private readonly injector: FaultInjector,
    private readonly handler: RequestHandler,
    port: number,
  ) {
    this.url = `http://127.0.0.1:${port}`;
    this.faults = injector;
  }

  /** Starts a server on 127.0.0.1 at a random free port. */
  static async start(opts: InMemoryApiServerOptions = {}): Promise<InMemoryApiServer> {
    const historyWindow = opts.historyWindow ?? 1000;
    if (!Number.isInteger(historyWindow) || historyWindow < 1) {
      throw new RangeError(`historyWindow must be a positive integer, got ${historyWindow}`);
    }
    const bookmarkIntervalMs = opts.bookmarkIntervalMs ?? 60_000;
    if (!(bookmarkIntervalMs > 0)) throw new RangeError(`bookmarkIntervalMs must be positive, got ${bookmarkIntervalMs}`);
    const store = new ObjectStore(historyWindow, opts.requireNamespaces ?? false, opts.fieldValidation ?? 'Warn');
    if (opts.builtins ?? true) for (const def of BUILTIN_RESOURCES) store.register(def);
    const hub = new WatchHub(store, opts.clock ?? realClock, bookmarkIntervalMs, opts.watchList ?? 'enabled');
    const injector = new FaultInjector(hub, store);
    const sockets = new Set<Socket>();
    // The handler needs the server's token set and address, which exist only once it listens.
    const ref: { server?: InMemoryApiServer } = {};
    const handler = new RequestHandler({
      store,
      hub,
      faults: injector,
      admission: new Admission(store),
      acceptedTokens: () => ref.server?.tokens,
      hostPort: () => (ref.server === undefined ? '' : ref.server.url.slice('http://'.length)),
    });
    const server = createServer({ keepAlive: true }, (req, res) => handler.handle(req, res));
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    const port = (server.address() as AddressInfo).port;
    ref.server = new InMemoryApiServer(server, sockets, store, hub, injector, handler, port);
    return ref.server;
  }

  /**
   * A client-node KubeConfig for this server: one cluster (`skipTLSVerify`,
   * which client-node 1.4 requires for plain http), one user with the bearer
   * token (default {@link DEFAULT_TEST_TOKEN}), one current context.
   */
  kubeConfig(opts: { token?: string } = {}): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'in-memory', server: this.url, skipTLSVerify: true }],
      users: [{ name: 'in-memory-user', token: opts.token ?? DEFAULT_TEST_TOKEN }],
      contexts: [{ name: 'in-memory', cluster: 'in-memory', user: 'in-memory-user', namespace: 'default' }],
      currentContext: 'in-memory',
    });
    return kc;
  }

  /** When set, requests without one of these bearer tokens get 401; `undefined` accepts anything again. */
  setAcceptedTokens(tokens: string[] | undefined): void {
    this.tokens = tokens === undefined ? undefined : new Set(tokens);
  }

  /** Serves `def` at once (discovery and endpoints); re-registering a GVR updates it and keeps its objects. */
  registerResource(def: ResourceDefinition): void {
    this.store.register(def);
  }

  /** Stops serving `gvr`: its endpoints answer 404, its open watches end, its objects are dropped. */
  unregisterResource(gvr: GroupVersionResource): void {
    this.store.unregister(gvr);
  }

  private table(gvr: GroupVersionResource): ResourceTable {
    const t = this.store.table(gvr);
    if (t === undefined) {
      throw Object.assign(routeNotFound(), { message: `resource ${gvrKey(gvr)} is not served by this server` });
    }
    return t;
  }

  /** Creates `obj` (POST semantics; namespace from `metadata.namespace`). */
  create(gvr: GroupVersionResource, obj: NewKubeObject): KubeObject {
    return copy(this.store.create(this.table(gvr), obj));
  }

  /** Replaces `obj` (PUT semantics). */
  update(gvr: GroupVersionResource, obj: KubeObject): KubeObject {
    return copy(this.store.update(this.table(gvr), obj));
  }

  /** Replaces `obj`'s status through the `/status` subresource. */
  updateStatus(gvr: GroupVersionResource, obj: KubeObject): KubeObject {
    return copy(this.store.update(this.table(gvr), obj, { subresource: 'status' }));
  }

  /** Applies a JSON merge patch (RFC 7386) to an object. */
  patch(gvr: GroupVersionResource, namespace: string, name: string, patch: Record<string, unknown>): KubeObject {
    return copy(this.store.patch(this.table(gvr), namespace, name, (cur) => mergePatch(cur, patch)));
  }

  /** Applies a JSON merge patch through the `/status` subresource (only `status` changes). */
  patchStatus(gvr: GroupVersionResource, namespace: string, name: string, patch: Record<string, unknown>): KubeObject {
    const t = this.table(gvr);
    return copy(this.store.patch(t, namespace, name, (cur) => mergePatch(cur, patch), { subresource: 'status' }));
  }

  /**
   * Server-side apply of `obj` as `fieldManager` (the HTTP PATCH with
   * `application/apply-patch+yaml`): creates it when missing; a field
   * another manager owns with another value throws an {@link ApiError} 409
   * naming it, unless `force`. `obj` needs `apiVersion`, `kind`,
   * `metadata.name` (and `metadata.namespace` for a namespaced resource).
   */
  apply(
    gvr: GroupVersionResource,
    obj: NewKubeObject,
    opts: { fieldManager: string; force?: boolean; subresource?: 'status' },
  ): KubeObject {
    const t = this.table(gvr);
    const name = typeof obj.metadata.name === 'string' ? obj.metadata.name : '';
    const namespace = typeof obj.metadata.namespace === 'string' ? obj.metadata.namespace : '';
    const applyOpts: ApplyOptions = { manager: opts.fieldManager, force: opts.force ?? false };
    if (opts.subresource !== undefined) applyOpts.subresource = opts.subresource;
    return copy(this.store.apply(t, namespace, name, obj, applyOpts).object);
  }

  /**
   * Deletes an object; returns it (with a deletionTimestamp if finalizers
   * keep it), or undefined when it did not exist.
   */
  delete(gvr: GroupVersionResource, namespace: string, name: string): KubeObject | undefined {
    const t = this.table(gvr);
    if (!t.has(objectKey(t.def.namespaced ? namespace : '', name))) return undefined;
    return copy(this.store.delete(t, namespace, name).object);
  }

  get(gvr: GroupVersionResource, namespace: string, name: string): KubeObject | undefined {
    const t = this.table(gvr);
    const obj = t.get(objectKey(t.def.namespaced ? namespace : '', name));
    return obj === undefined ? undefined : copy(obj);
  }

  /** Objects of `gvr` in storage order, in one namespace or all. */
  list(gvr: GroupVersionResource, namespace?: string): KubeObject[] {
    const t = this.table(gvr);
    const [lo, hi] = t.namespaceRange(namespace);
    return t
      .sortedKeys()
      .slice(lo, hi)
      .map((k) => copy(t.get(k) as KubeObject));
  }

  /** The resourceVersion of the last write, as a string. */
  currentResourceVersion(): string {
    return String(this.store.currentRv());
  }

  /** Every request received so far, oldest first. */
  requests(): ReadonlyArray<RequestRecord> {
    return this.handler.requests();
  }

  openWatchCount(): number {
    return this.hub.openCount();
  }

  /** Ends every watch, destroys every socket and closes the server. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.hub.dropAll();
    this.injector.clearParked();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    this.server.closeAllConnections();
    await closed;
  }
}
