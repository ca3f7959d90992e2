/** One event (or takeover, requeue, retry) that triggered a {@link RecentPass}: the attributes of the pass span's link. */
export interface RecentPassTrigger {
  /** `live`, `initial-list`, `resync`, `takeover`, `requeue`, `retry`. */
  readonly source: string;
  readonly gvr?: string;
  readonly namespace?: string;
  readonly name?: string;
  /** The event type (`add`, `update`, `delete`). */
  readonly type?: string;
  readonly resourceVersion?: string;
  /** Node ids of the instance's watches the event matched; absent for the instance's own events. */
  readonly watches?: readonly string[];
  /** The linked span (the event's routing, the takeover, the previous pass). */
  readonly traceId: string;
  readonly spanId: string;
}

/** A span started inside a {@link RecentPass} (a `@protean/client` request), placed on the pass's time line. */
export interface RecentPassSpan {
  /** `APPLY configmaps`, `GET widgets.example.com`, ... */
  readonly name: string;
  readonly spanId: string;
  /** From the pass's start. */
  readonly offsetMs: number;
  readonly durationMs: number;
  /** The status message of a span that ended in error. */
  readonly error?: string;
}

/** One recorded `protean.pass` span, as the status page's waterfall shows it. */
export interface RecentPass {
  readonly traceId: string;
  readonly spanId: string;
  readonly parent: string;
  readonly namespace: string;
  readonly name: string;
  readonly attempt?: number;
  /** `success`, `requeue`, `requeue_after`, `error`, `dropped`. */
  readonly outcome?: string;
  readonly requeue?: boolean;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly error?: string;
  /** What the pass declared (`node=resource namespace/name`). */
  readonly watches: readonly string[];
  readonly triggers: readonly RecentPassTrigger[];
  /** Triggers the pass could not link (past `PASS_TRIGGER_LIMIT`). */
  readonly triggersDropped: number;
  /** Its child spans, by start time. */
  readonly spans: readonly RecentPassSpan[];
  /** Child spans past the recorder's per-pass bound, not kept. */
  readonly spansDropped: number;
}

/** What the status page reads from a `RecentPassesRecorder`. */
export interface RecentPassesView {
  /** Whether an OpenTelemetry SDK's tracer provider is registered (without one nothing is recorded). */
  readonly tracing: boolean;
  /** How many passes the recorder keeps. */
  readonly limit: number;
  /** The recorded passes, newest first. */
  readonly passes: readonly RecentPass[];
}
