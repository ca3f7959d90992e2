import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Admission } from './Admission.js';
import { apiGroupDocument, apiGroupList, apiResourceList, apiVersions, versionInfo } from './discovery.js';
import type { FaultInjector } from './FaultInjector.js';
import { bearerToken, sendError, sendJson, sendText } from './httpIo.js';
import type { ObjectStore } from './ObjectStore.js';
import { parseApiPath } from './parseApiPath.js';
import { serveResource } from './resourceRequests.js';
import { methodNotAllowed, routeNotFound, unauthorized } from './statusErrors.js';
import type { RequestRecord } from './types.js';
import type { WatchHub } from './WatchHub.js';

/** The body of the real server's generic (non-API) 404. */
const PAGE_NOT_FOUND = '404 page not found\n';

/** What the request handler needs from its server. */
export interface RequestHandlerDeps {
  store: ObjectStore;
  hub: WatchHub;
  faults: FaultInjector;
  /** Calls admission webhooks on writes. */
  admission: Admission;
  /** Accepted bearer tokens, or undefined to accept any request. */
  acceptedTokens: () => ReadonlySet<string> | undefined;
  /** `127.0.0.1:PORT`, for `/api`'s serverAddressByClientCIDRs. */
  hostPort: () => string;
}

/**
 * The HTTP front of the in-memory API server: logs each request, applies
 * the stall, authentication and `failNext` hooks in that order, then routes
 * to discovery, health or a resource.
 */
export class RequestHandler {
  private readonly log: RequestRecord[] = [];

  constructor(private readonly deps: RequestHandlerDeps) {}

  /** The request log, oldest first. */
  requests(): ReadonlyArray<RequestRecord> {
    return [...this.log];
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://in-memory');
    this.log.push({
      method: (req.method ?? 'GET').toUpperCase(),
      path: url.pathname,
      query: new URLSearchParams(url.searchParams),
      accept: req.headers.accept,
      at: Date.now(),
    });
    const run = (): void => {
      if (res.destroyed || req.socket.destroyed) return;
      this.serve(req, res, url).catch((err: unknown) => sendError(res, err));
    };
    if (this.deps.faults.isStalled()) this.deps.faults.park(run);
    else run();
  }

  private async serve(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const { store, hub, faults } = this.deps;
    const tokens = this.deps.acceptedTokens();
    if (tokens !== undefined) {
      const token = bearerToken(req);
      if (token === undefined || !tokens.has(token)) throw unauthorized();
    }
    const method = (req.method ?? 'GET').toUpperCase();
    const failure = faults.takeFailure({ method, path: url.pathname, query: new URLSearchParams(url.searchParams) });
    if (failure !== undefined) throw failure;

    const path = parseApiPath(url.pathname, (group, version, resource) => {
      return store.table({ group, version, resource })?.def.namespaced === true;
    });
    const resources = store.allTables().map((t) => t.def);
    // Built-in groups answer unknown paths with a JSON Status; custom and unknown groups
    // fall through to the real server's generic handler, which sends plain text.
    const notFound = (group: string | undefined): void => {
      if (group === '' || (group !== undefined && resources.some((d) => d.builtin && d.group === group))) throw routeNotFound();
      sendText(res, 404, PAGE_NOT_FOUND);
    };
    if (path.kind !== 'resource' && method !== 'GET' && method !== 'HEAD') throw methodNotAllowed();
    switch (path.kind) {
      case 'root':
        return sendJson(res, 200, { paths: ['/api', '/api/v1', '/apis', '/healthz', '/livez', '/readyz', '/version'] });
      case 'version':
        return sendJson(res, 200, versionInfo());
      case 'health':
        return sendText(res, 200, 'ok');
      case 'api':
        return sendJson(res, 200, apiVersions(this.deps.hostPort()));
      case 'apis':
        return sendJson(res, 200, apiGroupList(resources));
      case 'group': {
        const doc = apiGroupDocument(resources, path.group);
        if (doc === undefined) return notFound(path.group);
        return sendJson(res, 200, doc);
      }
      case 'groupVersion': {
        const doc = apiResourceList(resources, path.group, path.version);
        if (doc === undefined) return notFound(path.group);
        return sendJson(res, 200, doc);
      }
      case 'resource': {
        const table = store.table(path);
        if (table === undefined) return notFound(path.group);
        return serveResource(store, hub, {
          req,
          res,
          query: url.searchParams,
          table,
          namespace: path.namespace,
          name: path.name,
          subresource: path.subresource,
          watchPath: path.watchPath,
          admission: this.deps.admission,
        });
      }
      default:
        return notFound(undefined);
    }
  }
}
