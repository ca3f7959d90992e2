import { gvrKey, type Clock, type GroupVersionResource } from '@protean/core';
import type { DecodedListPage } from './decodeListPage.js';
import type { ObjectDecoder } from './decodeWatchLine.js';
import type { InformerHealthTracker } from './InformerHealthTracker.js';
import { InformerStoppedError } from './informerSpan.js';
import { KubeRequest } from './KubeRequest.js';
import { LIST_ACCEPT, WATCH_ACCEPT, type InformerSettings } from './KubernetesInformerOptions.js';
import type { RequestVerb } from './KubernetesRequestError.js';
import { ListPageDecoder } from './ListPageDecoder.js';
import { ListWatchStateError } from './ListWatchStateError.js';
import type { Interner } from './StringInterner.js';

/** What the requests of one list/watch are built from. */
export interface ListWatchRequestsOptions {
  readonly gvr: GroupVersionResource;
  /** The collection path, checked once (`resourcePath`). */
  readonly path: string;
  readonly settings: InformerSettings;
  readonly clock: Clock;
  /** Picks each watch's server-side timeout between the settings' bounds. */
  readonly random: () => number;
  /** Told when each request last heard from the server, as it closes. */
  readonly tracker: InformerHealthTracker;
  /** Namespaces, creation timestamps and (metadata only) label sets, interned across the list/watch's pages and events. */
  readonly intern: Interner;
  /** Set for a list/watch of full objects: how each is decoded (and plain `application/json` is asked for). */
  readonly decodeObject: ObjectDecoder | undefined;
}

/**
 * The requests of one `KubernetesListWatch`: each LIST page and each
 * WATCH (its query: bookmarks, resourceVersion, streaming list, timeout)
 * as a {@link KubeRequest} of its collection path, with the
 * `Accept` of what it delivers (metadata only, or full objects) and the
 * `shardSelector` parameter on every one when set. One request is open at
 * a time; `stop` closes it and refuses any later one.
 *
 * Easy to get wrong: every request opened must be given back to
 * {@link close} (also after success), which frees its stream and records
 * when the server was last heard from.
 */
export class ListWatchRequests {
  private current: KubeRequest | undefined;
  private stopped = false;
  private readonly listAccept: string;
  private readonly watchAccept: string;

  constructor(private readonly options: ListWatchRequestsOptions) {
    const objects = options.decodeObject !== undefined;
    this.listAccept = objects ? 'application/json' : LIST_ACCEPT;
    this.watchAccept = objects ? 'application/json' : WATCH_ACCEPT;
  }

  /** When the open request last heard from the server, if one is open. */
  lastHeardMs(): number | undefined {
    return this.current?.lastHeardMs;
  }

  /**
   * A WATCH with bookmarks from `resourceVersion` (`''`: the latest state)
   * and a randomized server-side timeout, not sent yet. `streaming`: a
   * streaming list (`sendInitialEvents`), its state not older than
   * `resourceVersion`.
   */
  openWatch(resourceVersion: string, streaming: boolean): KubeRequest {
    const { minWatchTimeoutSeconds: min, maxWatchTimeoutSeconds: max } = this.options.settings;
    const q = new URLSearchParams({ watch: 'true', allowWatchBookmarks: 'true' });
    if (resourceVersion !== '') q.set('resourceVersion', resourceVersion);
    if (streaming) {
      q.set('sendInitialEvents', 'true');
      q.set('resourceVersionMatch', 'NotOlderThan');
    }
    q.set('timeoutSeconds', String(min + Math.floor(this.options.random() * (max - min + 1))));
    return this.open('WATCH', q, this.watchAccept);
  }

  /** One LIST page, decoded as its body arrives (see `ListPageDecoder`): the body is never held whole. */
  async fetchPage(q: URLSearchParams): Promise<DecodedListPage> {
    const req = this.open('LIST', q, this.listAccept);
    try {
      const res = await req.send();
      const decoder = new ListPageDecoder(this.options.gvr, this.options.intern, this.options.decodeObject);
      await req.consume(res, (chunk) => decoder.push(chunk));
      return decoder.end();
    } finally {
      this.close(req);
    }
  }

  /** Closes `req` (done with, or failed) and notes when it last heard from the server. */
  close(req: KubeRequest): void {
    this.options.tracker.heard(req.lastHeardMs);
    req.close();
    if (this.current === req) this.current = undefined;
  }

  /** Closes the open request, as the end of the informer (not a failure), and refuses any later one. */
  stop(): void {
    this.stopped = true;
    this.current?.close(new InformerStoppedError());
  }

  private open(verb: RequestVerb, q: URLSearchParams, accept: string): KubeRequest {
    const { gvr, path, settings, clock } = this.options;
    // A list continues page by page across awaits: no new request once stopped.
    if (this.stopped) throw new ListWatchStateError(`list/watch of ${gvrKey(gvr)} is stopped`);
    if (settings.shardSelector !== undefined) q.set('shardSelector', settings.shardSelector);
    const req = new KubeRequest({
      kubeConfig: settings.kubeConfig,
      connectionPool: settings.connectionPool,
      gvr,
      verb,
      pathAndQuery: `${path}?${q.toString()}`,
      accept,
      clock,
      inactivityTimeoutMs: settings.inactivityTimeoutMs,
    });
    this.current = req;
    return req;
  }
}
