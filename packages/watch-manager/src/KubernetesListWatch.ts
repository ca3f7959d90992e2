import {
  errorMessage,
  gvrKey,
  LogSummarizer,
  realClock,
  silentLogger,
  type Clock,
  type GroupVersionResource,
  type ListWatch,
  type ListWatchOptions,
  type ListWatchSink,
  type Logger,
  type PartialObjectMetadata,
  type ListWatchHealth,
} from '@protean/core';
import { wasChecked } from '@protean/core/internal';
import { fullObjectDecoder } from './decodeFullObject.js';
import { decodeWatchLine, type ObjectDecoder } from './decodeWatchLine.js';
import { InformerHealthTracker } from './InformerHealthTracker.js';
import { inInformerSpan } from './informerSpan.js';
import {
  checkInformerOptions,
  resolveInformerSettings,
  type InformerSettings,
  type KubernetesInformerOptions,
} from './KubernetesInformerOptions.js';
import { kindRefusalOf } from './kindRefusal.js';
import { KubernetesRequestError, type RequestVerb } from './KubernetesRequestError.js';
import { LineSplitter } from './LineSplitter.js';
import type { DecodedListPage } from './decodeListPage.js';
import { listAll } from './listAll.js';
import { ListWatchRequests } from './ListWatchRequests.js';
import { ListWatchStateError } from './ListWatchStateError.js';
import { resourcePath } from './resourcePath.js';
import { INFORMER_LOG_SUMMARY_INTERVAL_MS, RetryPolicy } from './RetryPolicy.js';
import { RetryWait, type WakeOn } from './RetryWait.js';
import { StreamingLists } from './StreamingLists.js';
import { StringInterner } from './StringInterner.js';

/**
 * The Kubernetes wire of a metadata-only informer of one GVR, with
 * client-go Reflector semantics: streaming lists (a watch with
 * `sendInitialEvents=true`, client-go's WatchList) where the server serves
 * them, else paginated LIST; resourceVersion ladder; WATCH with bookmarks
 * and a randomized timeout, re-watch from the last RV on a clean close,
 * relist on 410, `Retry-After` on 429, jittered backoff otherwise, and an
 * inactivity watchdog for half-open connections. It parses only trimmed
 * metadata (see `trimMetadata`) and reports its wire health (`health()`).
 * The informer engine (`Informer`) keeps the cache it feeds.
 *
 * A paginated LIST is delivered page by page as a streamed list
 * (`beginList`, the objects, `endList`); a streaming list delivers its
 * initial events the same way and ends the list at the bookmark annotated
 * `k8s.io/initial-events-end`, then goes on watching on the same stream. In `'auto'` mode it falls back to
 * the paginated LIST, remembered per group version (`StreamingListSupport`)
 * and logged once, when the server answers the streaming request with a
 * 4xx other than 401/403/404/408/409/410/429, or the stream ends or
 * `streamingListTimeoutMs` passes without that bookmark. A streaming list
 * the server times out on ("Too large resource version", a watch cache
 * behind the revision asked for) is done as a paginated LIST at once, that
 * time only: the next list streams again.
 *
 * Its parts: {@link ListWatchRequests} (each request, with its `Accept`
 * and `shardSelector`), {@link StreamingLists} (when lists stream, and
 * the fallbacks), `RetryPolicy` (how long to wait after a failure),
 * {@link RetryWait} (the wait, and what ends it early) and
 * `InformerHealthTracker` (`health()`). What it keeps itself is the
 * resourceVersion ladder and the order of the requests (`loop`).
 *
 * Easy to get wrong: `run` returns at once and the informer keeps retrying
 * on its own until its signal aborts; failures reach the watch error
 * handler and the log (warn once per outage), never the caller of `run`.
 */
export class KubernetesListWatch implements ListWatch {
  readonly gvr: GroupVersionResource;
  readonly delivers: 'metadata' | 'objects';
  private sink: ListWatchSink | undefined;
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly retry: RetryPolicy;
  /** Namespaces, creation timestamps and label sets, one copy each across the list/watch's pages and events. */
  private readonly intern = new StringInterner().interner;
  private running = false;
  private stopped = false;
  private listedOnce = false;
  /** The cache must be (re)built before watching on: by a paginated LIST or a streaming list. */
  private needList = true;
  private readonly tracker: InformerHealthTracker;
  private lastSyncRV = '';
  private rvUnavailable = false;
  private paginatedResult = false;
  /** The last watch was refused (403) while lists may be allowed: a list does not end the outage, a watch does. */
  private watchRefused = false;
  /** The current (or last) watch ended by a connection reset. */
  private watchBroken = false;
  /** Lines the current watch has applied (bookmarks included): its progress. */
  private watchLines = 0;

  /** The options with their defaults, resolved once. */
  private readonly settings: InformerSettings;
  /** Set for a list/watch of full objects (`start.objects`): how each is decoded. Unset: metadata only. */
  private readonly decodeObject: ObjectDecoder | undefined;
  private readonly requests: ListWatchRequests;
  private readonly streaming: StreamingLists;
  private readonly retryWait: RetryWait;

  /**
   * `start.notOlderThan`: the first list asks for a state not older than
   * that resourceVersion, as a relist does (and falls back to the latest
   * state if the server has compacted it away). `start.objects`: list and
   * watch full objects (plain `application/json`), trimmed by core's
   * `stripObject` and its transform, instead of metadata only.
   */
  constructor(gvr: GroupVersionResource, options: KubernetesInformerOptions, start: ListWatchOptions = {}) {
    if (!wasChecked(options)) checkInformerOptions(options);
    this.settings = resolveInformerSettings(options);
    // Checked once: a GVR or namespace that breaks the naming rules fails the constructor.
    const path = resourcePath(gvr, options.namespace);
    this.gvr = Object.freeze({ group: gvr.group, version: gvr.version, resource: gvr.resource });
    this.clock = options.clock ?? realClock;
    const random = options.random ?? Math.random;
    const base = (options.logger ?? silentLogger()).child({ component: 'informer' });
    this.log = base.child({ gvr: gvrKey(gvr) });
    const summarizer =
      options.logSummarizer ?? new LogSummarizer({ logger: base, clock: this.clock, intervalMs: INFORMER_LOG_SUMMARY_INTERVAL_MS });
    this.retry = new RetryPolicy(this.log, { ...options, clock: this.clock, random }, { summarizer, gvr: gvrKey(gvr) });
    this.tracker = new InformerHealthTracker(this.clock, this.settings.shortWatchMs);
    this.decodeObject = start.objects === undefined ? undefined : fullObjectDecoder(start.objects, this.intern);
    this.delivers = start.objects === undefined ? 'metadata' : 'objects';
    const { settings, clock, tracker, intern, decodeObject } = this;
    this.requests = new ListWatchRequests({ gvr: this.gvr, path, settings, clock, random, tracker, intern, decodeObject });
    this.streaming = new StreamingLists(this.gvr, settings, clock, this.log);
    this.retryWait = new RetryWait(clock, settings);
    if (start.notOlderThan !== undefined && start.notOlderThan !== '') {
      this.lastSyncRV = start.notOlderThan;
      this.listedOnce = true;
    }
  }

  run(sink: ListWatchSink, signal: AbortSignal): void {
    if (this.running) throw new ListWatchStateError(`list/watch of ${gvrKey(this.gvr)} was already run; create a new one`);
    this.running = true;
    this.sink = sink;
    if (signal.aborted) {
      this.stop();
      return;
    }
    signal.addEventListener('abort', () => this.stop(), { once: true });
    this.loop().catch((err: unknown) => this.log.error({ err }, 'informer loop crashed'));
  }

  isStopped(): boolean {
    return this.stopped;
  }

  /** The resourceVersion the next watch starts from (for diagnostics and tests). */
  lastSyncResourceVersion(): string {
    return this.lastSyncRV;
  }

  /** Idle time, the current outage and the list mode in use (see `InformerHealth`). */
  health(): ListWatchHealth {
    return this.tracker.snapshot(this.requests.lastHeardMs(), this.streaming.streams() ? 'streaming' : 'paginated');
  }

  private stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.requests.stop();
    this.streaming.stop();
    this.retryWait.stop();
  }

  private async loop(): Promise<void> {
    let wakeOn: WakeOn | undefined;
    while (!this.stopped) {
      let delayMs: number;
      const streaming = this.streaming.next(this.needList);
      try {
        if (this.needList && !streaming) {
          await inInformerSpan('list', this.gvr, { 'protean.informer.relist': this.listedOnce }, () => this.listAndReplace());
        }
        const watchAttributes = {
          'protean.informer.streaming_list': streaming && this.needList,
          'protean.informer.from': this.lastSyncRV || undefined,
        };
        delayMs = await inInformerSpan('watch', this.gvr, watchAttributes, () => this.watch(streaming));
        // A watch broken by a reset right after it opened (the server went away): back once /readyz says so.
        if (delayMs > 0 && this.watchBroken) wakeOn = this.retryWait.serverBack();
      } catch (err) {
        if (this.stopped) break;
        const failure = asRequestError(err, this.gvr, this.needList && !streaming ? 'LIST' : 'WATCH');
        if (streaming && this.needList) {
          // Timed out on the server: a paginated LIST this once, without a resourceVersion the server has not reached.
          if (this.streaming.listInstead(failure)) {
            this.rvUnavailable ||= this.lastSyncRV !== '';
            continue;
          }
          if (this.streaming.fallBack(failure)) continue;
        }
        const refusal = kindRefusalOf(this.gvr, failure, this.settings.namespace);
        // A kind refused as not served or forbidden is reported as such (health names the verb and the resource).
        this.report(refusal ?? failure);
        const step = this.retry.onFailure(failure);
        if (step.forgetResourceVersion) this.rvUnavailable = true;
        this.needList ||= step.relist;
        // Watch forbidden, list allowed: relists keep the cache fresh at the backoff's pace, but only a watch ends it.
        if (failure.verb === 'WATCH' && failure.status === 403) this.watchRefused = true;
        delayMs = step.delayMs;
        this.tracker.failed(refusal ?? failure, delayMs);
        // kro-diff: a kind refused as not served or forbidden is tried again as soon as its CRD changes or RBAC grants
        // the verb, and a server that was unreachable as soon as it answers /readyz (the backoff is the net); kro's
        // informers wait out their backoff.
        wakeOn = this.retryWait.wakeFor(failure, refusal);
      }
      if (delayMs > 0 && !this.stopped) await this.retryWait.sleep(delayMs, wakeOn);
      wakeOn = undefined;
      this.tracker.attempting();
    }
  }

  private report(err: Error): void {
    this.sink?.failed(err);
  }

  private async listAndReplace(): Promise<void> {
    const rv = this.rvUnavailable ? '' : this.listedOnce ? this.lastSyncRV : '0';
    // As client-go: a "not older than" relist is served from the watch cache unpaginated, unless the server paginated before.
    const limit = rv === '' || rv === '0' || this.paginatedResult ? this.settings.pageSize : 0;
    const fetchPage = (q: URLSearchParams): Promise<DecodedListPage> => this.requests.fetchPage(q);
    const sink = this.sink!;
    const target = { begin: () => sink.beginList(), add: (obj: PartialObjectMetadata) => sink.upsert(obj) };
    const { resourceVersion, pages } = await this.settings.listLimiter.run(() =>
      this.stopped ? Promise.resolve({ resourceVersion: '', pages: 0 }) : listAll(fetchPage, rv, limit, this.log, target),
    );
    if (this.stopped) return;
    this.rvUnavailable = false;
    this.listedOnce = true;
    if (pages > 1) this.paginatedResult = true;
    this.lastSyncRV = resourceVersion;
    if (!this.watchRefused) this.retry.succeeded();
    this.listed();
  }

  /** The list is complete: the sink swaps it in. */
  private listed(): void {
    this.needList = false;
    if (!this.watchRefused) this.tracker.listed();
    this.sink!.endList();
  }

  /**
   * One watch; resolves with the delay before the next one. A plain watch
   * starts from the last synced RV. A streaming one (`streaming`) first
   * receives the collection's current state and asks, as client-go does,
   * for "" (a consistent read of the latest state) before the first sync
   * and after a 410, else for a state not older than the last synced RV.
   */
  private async watch(streaming: boolean): Promise<number> {
    const startedMs = this.clock.now();
    this.watchLines = 0;
    this.watchBroken = false;
    const req = this.requests.openWatch(streaming && this.rvUnavailable ? '' : this.lastSyncRV, streaming);
    try {
      const res = await req.send();
      this.watchRefused = false;
      this.retry.succeeded();
      this.tracker.watchOpened();
      if (streaming) {
        // The streaming list's response arrived: the sink collects its initial events.
        this.streaming.beginInitialEvents(req);
        this.sink!.beginList();
      }
      const lines = new LineSplitter();
      try {
        await req.consume(res, (chunk) => lines.push(chunk, this.onWatchLine));
        lines.end(this.onWatchLine);
      } catch (err) {
        // A broken stream is re-watched like a clean close, unless it was us (stop, watchdog, ERROR event).
        if (!(err instanceof KubernetesRequestError) || err.reason !== 'ConnectionReset') throw err;
        this.watchBroken = true;
        this.report(err);
        this.log.debug({ err: err.message, events: this.watchLines }, 'watch stream broke; re-watching');
        // Broken during the initial events: the list starts over, on a stream again.
        this.streaming.endInitialEvents();
      }
      if (this.streaming.initial) {
        // Ended cleanly without the end bookmark: what a server that ignores sendInitialEvents does.
        throw new KubernetesRequestError(this.gvr, 'WATCH', 'the streaming list ended before its initial-events-end bookmark', {
          reason: 'InitialEventsEndMissing',
        });
      }
    } finally {
      this.streaming.endInitialEvents();
      this.tracker.watchClosed();
      this.requests.close(req);
      // Also when the stream ends in an error (an in-stream 410): the events before it were progress.
      if (this.watchLines > 0) this.retry.onProgress();
    }
    const shortMs = this.settings.shortWatchMs;
    if (this.watchLines > 0 || this.clock.now() - startedMs >= shortMs) return 0;
    const delayMs = this.retry.onShortWatch();
    this.tracker.failed(
      new KubernetesRequestError(this.gvr, 'WATCH', `the watch ended within ${shortMs} ms without an event`, { reason: 'ShortWatch' }),
      delayMs,
    );
    return delayMs;
  }

  /** The end bookmark of a streaming list: its state becomes the cache, at the bookmark's resourceVersion. */
  private commitInitialEvents(rv: string): void {
    if (!this.streaming.initial) return;
    this.streaming.endInitialEvents();
    this.rvUnavailable = false;
    this.listedOnce = true;
    this.lastSyncRV = rv;
    this.listed();
  }

  /** Passes one line of the watch stream to the sink; a line that throws does not count as progress. */
  private readonly onWatchLine = (text: string, start: number, end: number): void => {
    const ev = decodeWatchLine(text, start, end, this.gvr, this.intern, this.decodeObject);
    if (ev.type === 'BOOKMARK') {
      if (this.watchLines++ === 0) this.tracker.progressed();
      const rv = ev.resourceVersion;
      if (rv === undefined) return;
      if (!this.streaming.initial) this.lastSyncRV = rv;
      else if (ev.initialEventsEnd) this.commitInitialEvents(rv);
      return;
    }
    if (ev.type === 'ERROR') throw KubernetesRequestError.fromStatus(this.gvr, ev.status);
    const obj = ev.object;
    if (this.watchLines++ === 0) this.tracker.progressed();
    // During a streaming list's initial events the sink builds the next state; listeners hear of it at the end.
    if (ev.type === 'DELETED') this.sink!.remove(obj);
    else this.sink!.upsert(obj);
    if (!this.streaming.initial && obj.metadata.resourceVersion !== undefined) this.lastSyncRV = obj.metadata.resourceVersion;
  };
}

function asRequestError(err: unknown, gvr: GroupVersionResource, verb: RequestVerb): KubernetesRequestError {
  if (err instanceof KubernetesRequestError) return err;
  const message = errorMessage(err);
  return new KubernetesRequestError(gvr, verb, message, { reason: 'NetworkError', cause: err });
}
