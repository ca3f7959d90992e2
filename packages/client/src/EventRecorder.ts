import { hostname } from 'node:os';
import { realClock, summarizeError, type Clock, type GroupVersionResource, type Logger } from '@protean/core';
import type { KubeClient } from './KubeClient.js';
import type { KubeObject } from './KubeObject.js';

/** The `events.k8s.io/v1` resource. */
export const EVENTS: GroupVersionResource = Object.freeze({ group: 'events.k8s.io', version: 'v1', resource: 'events' });

/** What happened, as {@link EventRecorder.event} takes it. */
export interface EventInput {
  readonly type: 'Normal' | 'Warning';
  /** CamelCase, why the action was taken: `ConfigMapApplied`, `BackupFailed`. */
  readonly reason: string;
  /** CamelCase, what was done or failed: `Apply`, `Reconcile`. */
  readonly action: string;
  /** Human-readable; at most 1 kB is kept. */
  readonly note?: string;
  /** A second object involved (the child the action was about). */
  readonly related?: KubeObject;
}

/** Options of an {@link EventRecorder}. Durations are milliseconds. */
export interface EventRecorderOptions {
  /** Writes the Events; give it its own client if the handlers' client has a field manager you care about. */
  readonly client: KubeClient;
  /** `reportingController`: a qualified name such as `guide.protean.dev/greeting-controller`. */
  readonly reportingController: string;
  /** `reportingInstance`. Default `<reportingController>-<hostname>` (at most 128 characters). */
  readonly reportingInstance?: string;
  /** Timers and the spam filter's time. Default: real time. */
  readonly clock?: Clock;
  /** Wall-clock time for `eventTime` and `series.lastObservedTime`. Default `() => new Date()`. */
  readonly now?: () => Date;
  /** Failed writes are logged here at debug level, dropped events at warn once per object. Default: nothing. */
  readonly logger?: Logger;
  /** Writes the spam filter lets through at once per regarded object (client-go: 25). */
  readonly burst?: number;
  /** One more write per regarded object every this long once the burst is spent (client-go: 5 minutes). */
  readonly refillMs?: number;
  /** A series with no new event for this long is finished; the next one starts a new Event (client-go: 6 minutes). */
  readonly seriesIdleMs?: number;
  /** Events waiting to be written at most; past it new ones are dropped (client-go: 1000). */
  readonly maxPending?: number;
}

interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
}

/** One Event object on the server and the occurrences it stands for. */
interface Series {
  readonly key: string;
  readonly spamKey: string;
  readonly namespace: string;
  readonly name: string;
  readonly event: Record<string, unknown>;
  /** Occurrences observed so far. */
  count: number;
  /** Occurrences the server knows of (0: not created yet). */
  written: number;
  lastObservedMs: number;
  lastObservedTime: string;
  writing: boolean;
}

interface Bucket {
  tokens: number;
  atMs: number;
}

const NOTE_MAX = 1024;

/**
 * Records `events.k8s.io/v1` Events for a controller with client-go's
 * event correlation: an event like one seen before (same object, related
 * object, type, reason, action, reporter) does not create another Event but
 * counts into the first one's `series` (`count`, `lastObservedTime`), and a
 * per-object token bucket (burst 25, one more every 5 minutes) limits how
 * often one object's Events are written. Writes run in the background, one
 * at a time per series, coalescing what arrived meanwhile into one patch: a
 * burst of 1,000 identical events is one Event with `series.count: 1000`.
 *
 * `event()` never blocks and never throws: a failed or filtered write is
 * logged (debug) and dropped, as client-go does, so recording cannot fail
 * or slow down a reconcile.
 *
 * Easy to get wrong: `regarding` must be an object read from the server
 * (its `uid`, `kind` and `apiVersion` are copied); call {@link stop} at
 * shutdown, or {@link flush} in tests to wait for the writes.
 */
export class EventRecorder {
  private readonly client: KubeClient;
  private readonly reportingController: string;
  private readonly reportingInstance: string;
  private readonly clock: Clock;
  private readonly now: () => Date;
  private readonly logger: Logger | undefined;
  private readonly burst: number;
  private readonly refillMs: number;
  private readonly seriesIdleMs: number;
  private readonly maxPending: number;
  private readonly series = new Map<string, Series>();
  private readonly buckets = new Map<string, Bucket>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  private sequence = 0;
  private stopped = false;

  constructor(options: EventRecorderOptions) {
    this.client = options.client;
    this.reportingController = options.reportingController;
    this.reportingInstance = (options.reportingInstance ?? `${options.reportingController}-${hostname()}`).slice(0, 128);
    this.clock = options.clock ?? realClock;
    this.now = options.now ?? (() => new Date());
    this.logger = options.logger;
    this.burst = options.burst ?? 25;
    this.refillMs = options.refillMs ?? 5 * 60_000;
    this.seriesIdleMs = options.seriesIdleMs ?? 6 * 60_000;
    this.maxPending = options.maxPending ?? 1000;
  }

  /** Records that `input` happened to `regarding`. Returns at once; the write happens later, or not at all. */
  event(regarding: KubeObject, input: EventInput): void {
    if (this.stopped) return;
    try {
      this.observe(regarding, input);
    } catch (err) {
      this.logger?.debug({ err }, 'recording an event failed');
    }
  }

  /** Resolves once every write started so far (and the follow-up writes they trigger) has finished. */
  async flush(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Aborts the writes in flight and drops what comes later. */
  stop(): void {
    this.stopped = true;
    this.abort.abort(new Error('event recorder stopped'));
  }

  private observe(regarding: KubeObject, input: EventInput): void {
    const ref = referenceOf(regarding);
    const related = input.related === undefined ? undefined : referenceOf(input.related);
    const spamKey = `${ref.uid ?? ''}|${ref.namespace ?? ''}/${ref.name ?? ''}|${ref.kind ?? ''}`;
    const key = JSON.stringify([spamKey, related?.uid, related?.name, input.type, input.reason, input.action]);
    const nowMs = this.clock.now();
    const at = microTime(this.now());
    const existing = this.series.get(key);
    if (existing !== undefined && nowMs - existing.lastObservedMs <= this.seriesIdleMs) {
      existing.count++;
      existing.lastObservedMs = nowMs;
      existing.lastObservedTime = at;
      this.write(existing);
      return;
    }
    if (this.pendingCount() >= this.maxPending) {
      this.logger?.debug({ reason: input.reason }, 'event dropped: too many events waiting to be written');
      return;
    }
    const namespace = ref.namespace === undefined || ref.namespace === '' ? 'default' : ref.namespace;
    // As client-go names them: the object's name and a hex timestamp (here ms * 1000 + a sequence number, unique per recorder).
    const name = `${ref.name ?? 'object'}.${(this.now().getTime() * 1000 + (this.sequence++ % 1000)).toString(16)}`;
    const event: Record<string, unknown> = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name, namespace },
      eventTime: at,
      reportingController: this.reportingController,
      reportingInstance: this.reportingInstance,
      action: input.action,
      reason: input.reason,
      type: input.type,
      regarding: ref,
      ...(related === undefined ? {} : { related }),
      ...(input.note === undefined ? {} : { note: input.note.slice(0, NOTE_MAX) }),
    };
    const s: Series = {
      key,
      spamKey,
      namespace,
      name,
      event,
      count: 1,
      written: 0,
      lastObservedMs: nowMs,
      lastObservedTime: at,
      writing: false,
    };
    this.series.set(key, s);
    this.forgetIdle(nowMs);
    this.write(s);
  }

  /** Starts a write for `s` unless one is running (it then writes again when done) or the spam filter says no. */
  private write(s: Series): void {
    if (s.writing || s.count === s.written || this.stopped) return;
    if (!this.takeToken(s.spamKey)) {
      this.logger?.debug({ event: s.name }, 'event write skipped by the spam filter');
      return;
    }
    s.writing = true;
    const count = s.count;
    const signal = this.abort.signal;
    const send =
      s.written === 0
        ? this.client.create(EVENTS, count === 1 ? s.event : { ...s.event, series: seriesOf(count, s.lastObservedTime) }, { signal })
        : this.client.patch(EVENTS, { namespace: s.namespace, name: s.name }, { series: seriesOf(count, s.lastObservedTime) }, { signal });
    const done = send.then(
      () => {
        s.written = count;
      },
      (err: unknown) => {
        this.logger?.debug({ event: s.name, error: summarizeError(err) }, 'writing an event failed; dropped');
        // A series whose Event could not be created starts over with the next occurrence.
        if (s.written === 0) this.series.delete(s.key);
        else s.written = count;
      },
    );
    const tracked = done.finally(() => {
      s.writing = false;
      this.inFlight.delete(tracked);
      if (this.series.get(s.key) === s) this.write(s);
    });
    this.inFlight.add(tracked);
  }

  /** The per-object token bucket of the spam filter. */
  private takeToken(spamKey: string): boolean {
    const nowMs = this.clock.now();
    const bucket = this.buckets.get(spamKey) ?? { tokens: this.burst, atMs: nowMs };
    const refilled = this.refillMs > 0 ? Math.floor((nowMs - bucket.atMs) / this.refillMs) : this.burst;
    if (refilled > 0) {
      bucket.tokens = Math.min(this.burst, bucket.tokens + refilled);
      bucket.atMs = this.refillMs > 0 ? bucket.atMs + refilled * this.refillMs : nowMs;
    }
    this.buckets.set(spamKey, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens--;
    return true;
  }

  private pendingCount(): number {
    let n = 0;
    for (const s of this.series.values()) if (s.count !== s.written) n++;
    return n;
  }

  /** Drops finished series (and full, idle buckets) so memory stays bounded by recent activity. */
  private forgetIdle(nowMs: number): void {
    for (const [key, s] of this.series) {
      if (!s.writing && s.count === s.written && nowMs - s.lastObservedMs > this.seriesIdleMs) this.series.delete(key);
    }
    for (const [key, b] of this.buckets) {
      if (nowMs - b.atMs >= this.burst * this.refillMs) this.buckets.delete(key);
    }
  }
}

function referenceOf(obj: KubeObject): ObjectReference {
  const ref: ObjectReference = {};
  if (obj.apiVersion !== undefined) ref.apiVersion = obj.apiVersion;
  if (obj.kind !== undefined) ref.kind = obj.kind;
  if (obj.metadata?.name !== undefined) ref.name = obj.metadata.name;
  if (obj.metadata?.namespace !== undefined && obj.metadata.namespace !== '') ref.namespace = obj.metadata.namespace;
  if (obj.metadata?.uid !== undefined) ref.uid = obj.metadata.uid;
  return ref;
}

function seriesOf(count: number, lastObservedTime: string): { count: number; lastObservedTime: string } {
  return { count, lastObservedTime };
}

/** `metav1.MicroTime`: RFC 3339 with six fractional digits. */
function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
