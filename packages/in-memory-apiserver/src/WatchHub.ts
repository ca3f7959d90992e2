import type { ServerResponse } from 'node:http';
import type { Clock } from '@protean/core';
import type { ObjectFilter } from './ObjectFilter.js';
import type { ObjectStore, StoreListener } from './ObjectStore.js';
import type { ResourceTable, StoreEvent } from './ResourceTable.js';
import { badRequest, expired, listOptionsInvalid, tooLargeResourceVersion, type FieldCause } from './statusErrors.js';
import { WatchStream } from './WatchStream.js';
import type { KubeObject, WatchListMode } from './types.js';

/** A parsed watch request. */
export interface WatchRequest {
  table: ResourceTable;
  namespace: string | undefined;
  filter: ObjectFilter;
  partial: boolean;
  query: URLSearchParams;
}

function nonNegativeInt(query: URLSearchParams, name: string): number | undefined {
  const text = query.get(name);
  if (text === null || text === '') return undefined;
  if (!/^[0-9]+$/.test(text)) throw badRequest(`${name}: Invalid value: "${text}": must be a non-negative integer`);
  return Number(text);
}

/**
 * Every open watch, by resource: feeds them committed changes, closes them
 * when their resource stops being served, and implements the watch fault
 * hooks.
 *
 * Easy to get wrong: opening a watch (replay or initial state, then
 * registration) happens in one synchronous step, so no change can fall
 * between the replayed history and the live events.
 */
export class WatchHub implements StoreListener {
  private readonly streams = new Map<ResourceTable, Set<WatchStream>>();
  private stalled = false;
  /** Streaming lists still to answer with an in-stream "Too large resource version" (see `timeOutStreamingLists`). */
  private streamingListTimeouts = 0;

  constructor(
    private readonly store: ObjectStore,
    private readonly clock: Clock,
    private readonly bookmarkIntervalMs: number,
    private readonly watchList: WatchListMode,
  ) {
    store.addListener(this);
  }

  /**
   * Validates the request (throws 400 before any header is sent), then
   * answers 200 and streams: the current state as ADDED for resourceVersion
   * "" / "0" (or `sendInitialEvents=true`), else the history after the given
   * resourceVersion; an expired one gets an in-stream ERROR 410, as from the
   * real watch cache. `sendInitialEvents` needs `resourceVersionMatch=NotOlderThan`
   * (422 otherwise, as the real server checks `ListOptions`); its state is
   * the current one, whatever resourceVersion (not older) was asked for.
   */
  open(req: WatchRequest, res: ServerResponse): void {
    const { table, query } = req;
    const rvText = query.get('resourceVersion') ?? '';
    let fromRv: number | undefined;
    if (rvText !== '' && rvText !== '0') {
      if (!/^[0-9]+$/.test(rvText)) throw badRequest(`resourceVersion: Invalid value: "${rvText}": must be a non-negative integer`);
      fromRv = Number(rvText);
    }
    const timeoutSeconds = nonNegativeInt(query, 'timeoutSeconds');
    const bookmarks = query.get('allowWatchBookmarks') === 'true';
    const causes = this.watchList === 'ignored' ? [] : watchListCauses(query, this.watchList);
    if (causes.length > 0) throw listOptionsInvalid(causes);
    const sendInitial = this.watchList !== 'ignored' && query.get('sendInitialEvents') === 'true';

    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
    // Headers must go out now: a watch may stay silent for a long time.
    res.flushHeaders();
    const stream = new WatchStream(
      table,
      res,
      {
        namespace: req.namespace,
        filter: req.filter,
        partial: req.partial,
        bookmarks,
        timeoutMs: timeoutSeconds === undefined || timeoutSeconds === 0 ? undefined : timeoutSeconds * 1000,
        bookmarkIntervalMs: this.bookmarkIntervalMs,
      },
      this.clock,
      () => this.store.currentRv(),
      (s) => this.streams.get(s.table)?.delete(s),
    );
    if (this.stalled) stream.setStalled(true);
    const currentRv = this.store.currentRv();
    const lagging = sendInitial && this.streamingListTimeouts > 0;
    if (lagging) this.streamingListTimeouts--;
    if (lagging || (sendInitial && fromRv !== undefined && fromRv > currentRv)) {
      // The real server waits a few seconds for the resourceVersion, then gives up in the stream.
      // A lagging watch cache is one revision behind what it was asked for ("" asks for the latest).
      const requested = fromRv ?? currentRv;
      const body = tooLargeResourceVersion(requested, Math.max(0, Math.min(currentRv, requested - 1))).body;
      stream.sendError({ ...body, message: `Timeout: ${body.message ?? ''}` });
      stream.end();
      return;
    }
    if (fromRv === undefined || sendInitial) {
      stream.sendInitial(this.currentObjects(table, req.namespace));
      if (sendInitial && bookmarks) stream.sendBookmark(true);
    } else if (fromRv < table.oldestResumable()) {
      stream.sendError(expired(`too old resource version: ${fromRv} (${table.oldestResumable()})`).body);
      stream.end();
      return;
    } else {
      // A resourceVersion in the future simply waits for it: events up to it are skipped.
      for (const e of table.eventsAfter(fromRv)) stream.deliver(e);
    }
    let set = this.streams.get(table);
    if (set === undefined) {
      set = new Set();
      this.streams.set(table, set);
    }
    if (!stream.isOpen()) return;
    set.add(stream);
    stream.start();
  }

  private *currentObjects(table: ResourceTable, namespace: string | undefined): Iterable<KubeObject> {
    const [lo, hi] = table.namespaceRange(namespace);
    const keys = table.sortedKeys().slice(lo, hi);
    for (const k of keys) {
      const o = table.get(k);
      if (o !== undefined) yield o;
    }
  }

  onEvent(table: ResourceTable, event: StoreEvent): void {
    const set = this.streams.get(table);
    if (set === undefined) return;
    for (const s of set) s.deliver(event);
  }

  onUnregistered(table: ResourceTable): void {
    const set = this.streams.get(table);
    this.streams.delete(table);
    if (set !== undefined) for (const s of [...set]) s.end(true);
  }

  private all(): WatchStream[] {
    return [...this.streams.values()].flatMap((s) => [...s]);
  }

  openCount(): number {
    let n = 0;
    for (const s of this.streams.values()) n += s.size;
    return n;
  }

  dropAll(): void {
    for (const s of this.all()) s.destroy();
  }

  closeAll(): void {
    for (const s of this.all()) s.end(true);
  }

  /** The next `count` streaming lists end in an in-stream "Too large resource version" Timeout. */
  timeOutStreamingLists(count: number): void {
    this.streamingListTimeouts = count;
  }

  setStalled(stalled: boolean): void {
    this.stalled = stalled;
    for (const s of this.all()) s.setStalled(stalled);
  }
}

/** The `ListOptions` checks of a watch's streaming-list parameters, in the real server's order. */
function watchListCauses(query: URLSearchParams, mode: WatchListMode): FieldCause[] {
  const sendInitial = query.get('sendInitialEvents');
  const match = query.get('resourceVersionMatch') ?? '';
  const causes: FieldCause[] = [];
  const forbidden = (field: string, message: string): void => {
    causes.push({ field, reason: 'FieldValueForbidden', message: `Forbidden: ${message}` });
  };
  if (sendInitial !== null && sendInitial !== '') {
    if (match !== 'NotOlderThan')
      forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
    if (mode === 'disabled')
      forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled');
    if (match !== '' && match !== 'NotOlderThan') {
      causes.push({
        field: 'resourceVersionMatch',
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: "${match}": supported values: "NotOlderThan"`,
      });
    }
  } else if (match !== '') {
    forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
  }
  return causes;
}
