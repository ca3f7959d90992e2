import type { Clock, ListWatch, ListWatchSink, ListWatchHealth } from '@protean/core';
import { Feed } from './Feed.js';

/**
 * The list/watches feeding one {@link Informer}, and the one way they
 * change: a new list/watch runs beside the current one, which keeps
 * feeding the cache until the new one's first list replaces the cache
 * (the informer then calls {@link promote}); a switch still listing is
 * dropped by the next one. The informer asks for a switch
 * (`switchSource`: full objects, metadata only), and so does a
 * list/watch through its sink (`ListWatchSink.switchSource`: a shard's
 * new ranges); both come here.
 *
 * Easy to get wrong: a replaced list/watch is silenced before the new one
 * runs but stopped (its signal aborted) only after, so a decorator that
 * counts its running list/watches never sees none between the two.
 */
export class FeedSwitch {
  /** The list/watch whose events change the cache. */
  current: Feed;
  /** A list/watch switched to that has not listed yet. */
  next: Feed | undefined;
  /** The resourceVersion of the last watch event applied: where a list/watch switched to lists from. */
  lastVersion: string | undefined;

  constructor(
    first: Feed,
    private readonly clock: Clock,
    /** Runs a feed's source into the sink the informer makes for it. */
    private readonly sinkFor: (feed: Feed) => ListWatchSink,
  ) {
    this.current = first;
  }

  /**
   * The informer asks to replace the list/watch with `source` (full
   * objects, metadata only: what the cache holds changes); `takeOver`
   * (before the first sync, when no list was delivered): in its place at once.
   */
  switchSource(source: ListWatch, holdsObjects: boolean, takeOver: boolean): void {
    this.start(new Feed(source, holdsObjects, this.clock, { switched: true, takeover: false }), takeOver);
  }

  /**
   * `from`'s list/watch asks through its sink to be replaced by the one
   * `build` makes, from the last event's resourceVersion. Nothing when a
   * switch still listing replaces `from` anyway; rebuilt from that pending
   * switch, the new one brings what it was to bring (full objects).
   */
  switchFrom(from: Feed, build: (notOlderThan: string | undefined) => ListWatch, reason: 'takeover' | undefined, takeOver: boolean): void {
    if (from === this.current && this.next !== undefined) return;
    const kind = { switched: from !== this.current && from.switched, takeover: reason === 'takeover' };
    this.start(new Feed(build(this.lastVersion), from.holdsObjects, this.clock, kind), takeOver);
  }

  /** `feed`, switched to, listed: it becomes current, and the one it replaces stops. */
  promote(feed: Feed): void {
    this.current.retire();
    this.current = feed;
    this.next = undefined;
  }

  /** True while a switch asked through `Informer.switchSource` (or rebuilt from one) has not listed. */
  isSwitching(): boolean {
    return this.next?.switched === true;
  }

  /**
   * The current list/watch's health; while a switch lists and fails, its
   * outage shows: what it is to bring is not coming.
   */
  health(): ListWatchHealth {
    const current = this.current.health();
    const next = this.next?.health();
    return current.failing === undefined && next?.failing !== undefined ? { ...current, failing: next.failing } : current;
  }

  /** Stops every list/watch. */
  stop(): void {
    this.current.retire();
    this.next?.retire();
    this.next = undefined;
  }

  /** Runs `feed` beside the current list/watch, or in its place (`takeOver`); drops a switch still listing. */
  private start(feed: Feed, takeOver: boolean): void {
    const replaced = [this.next];
    this.next = undefined;
    if (takeOver) {
      replaced.push(this.current);
      this.current = feed;
    } else {
      this.next = feed;
    }
    for (const old of replaced) old?.silence();
    try {
      feed.source.run(this.sinkFor(feed), feed.abort.signal);
    } finally {
      for (const old of replaced) old?.retire();
    }
  }
}
