import type { Clock, GroupVersionResource, Logger, TimerHandle } from '@protean/core';
import type { KubeRequest } from './KubeRequest.js';
import type { InformerSettings } from './KubernetesInformerOptions.js';
import { KubernetesRequestError } from './KubernetesRequestError.js';
import { refusesStreamingList } from './refusesStreamingList.js';

/**
 * How one `KubernetesListWatch` lists through a watch (`sendInitialEvents`,
 * client-go's WatchList): whether its next list streams, when a failed
 * streaming list turns into a paginated LIST (for good: {@link fallBack};
 * this once: {@link listInstead}), and the initial events of the streaming
 * list in progress, with the `streamingListTimeoutMs` timer that gives up
 * on their end bookmark (`'auto'` mode).
 *
 * Easy to get wrong: a fallback is remembered in the
 * `StreamingListSupport` of the settings, shared by every list/watch of a
 * source for the whole group version; a streaming list the server timed
 * out on is listed by a paginated LIST once, and the next list streams again.
 */
export class StreamingLists {
  /** While a streaming list's initial events arrive (the sink builds the next state from them, until the end bookmark). */
  initial = false;
  private initialTimer: TimerHandle | undefined;
  /** The next list is a paginated LIST even where streaming lists are served: the streaming one just timed out. */
  private listOnce = false;
  /** A streaming list has timed out on the server before (logged at info the first time, at debug after). */
  private streamTimedOut = false;

  constructor(
    private readonly gvr: GroupVersionResource,
    private readonly settings: InformerSettings,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  /** Whether a list now would be a streaming one (a watch with `sendInitialEvents`). */
  streams(): boolean {
    const mode = this.settings.streamingList;
    return mode === 'always' || (mode === 'auto' && this.settings.streamingListSupport.supports(this.gvr));
  }

  /** Whether the next attempt streams its list (`needList`: a list is due); a list done as a LIST once is used up. */
  next(needList: boolean): boolean {
    const streaming = needList && this.streams() && !this.listOnce;
    this.listOnce = false;
    return streaming;
  }

  /**
   * In `'auto'` mode, turns a streaming list the server did not serve into
   * a paginated LIST from now on (for the whole group version when the
   * support is shared); true if it did. Any other failure is retried as usual.
   */
  fallBack(err: KubernetesRequestError): boolean {
    if (this.settings.streamingList !== 'auto' || !refusesStreamingList(err)) return false;
    if (this.settings.streamingListSupport.refuse(this.gvr, err.message)) {
      this.log.warn(
        { err: err.message, status: err.status },
        'the API server does not serve streaming lists (sendInitialEvents) for this group version; using paginated LIST from now on',
      );
    }
    return true;
  }

  /**
   * A streaming list the server timed out on before its end bookmark ("Too
   * large resource version": its watch cache did not catch up with the
   * revision asked for within its freshness wait, which a streaming list,
   * unlike a LIST, cannot fall back to etcd from) is done as a paginated
   * LIST at once, this time only, as client-go does: making progress beats
   * waiting. The LIST asks what any LIST would, except a resourceVersion
   * the server has not reached: the caller forgets that one and asks for
   * "". True if it did.
   */
  listInstead(err: KubernetesRequestError): boolean {
    if (this.settings.streamingList !== 'auto' || err.verb !== 'WATCH' || !err.resourceVersionTooLarge) return false;
    this.listOnce = true;
    const fields = { err: err.message, status: err.status };
    const msg = 'the API server timed out on the streaming list; listing with paginated LIST this time';
    if (this.streamTimedOut) this.log.debug(fields, msg);
    else this.log.info(fields, msg);
    this.streamTimedOut = true;
    return true;
  }

  /** A streaming list's response arrived: its initial events follow; give up on them after the timeout (`'auto'` mode). */
  beginInitialEvents(req: KubeRequest): void {
    this.initial = true;
    if (this.settings.streamingList !== 'auto') return;
    const timeoutMs = this.settings.streamingListTimeoutMs;
    this.initialTimer = this.clock.setTimeout(() => {
      this.initialTimer = undefined;
      const detail = `no initial-events-end bookmark within ${timeoutMs} ms of the streaming list's response`;
      req.close(new KubernetesRequestError(this.gvr, 'WATCH', detail, { reason: 'InitialEventsEndMissing' }));
    }, timeoutMs);
  }

  /** The initial events ended: at their end bookmark, or with their stream. */
  endInitialEvents(): void {
    this.initial = false;
    this.stop();
  }

  /** Leaves no timer (the list/watch stopped). */
  stop(): void {
    if (this.initialTimer !== undefined) this.clock.clearTimeout(this.initialTimer);
    this.initialTimer = undefined;
  }
}
