/**
 * A failing run of list/watch requests of one informer (an outage): from
 * its first failure until a list completes or a watch makes progress again.
 */
export interface InformerFailure {
  /** How long the outage has lasted: milliseconds since its first failure. */
  readonly forMs: number;
  /** Failures in a row during the outage (1 after the first). */
  readonly consecutive: number;
  /** The last failure's message. */
  readonly cause: string;
  /** The last failure's HTTP (or `Status.code`) status; undefined for network failures. */
  readonly status: number | undefined;
  /** The last failure's reason (`Forbidden`, `Expired`, `NetworkError`, `InactivityTimeout`, ...), when known. */
  readonly reason: string | undefined;
  /** Milliseconds until the next attempt; undefined while an attempt is in flight. */
  readonly retryInMs: number | undefined;
}

/**
 * What an informer reports of its own health at the moment of the call
 * (`Informer.health`). Durations are measured on the informer's clock and
 * given as ages, so a reader on another clock can compare them to its
 * thresholds directly.
 *
 * Easy to get wrong: `synced` never turns false again once the initial
 * list was delivered; an informer that lost its watch later shows it in
 * `failing` and `idleMs`, not in `synced`.
 */
export interface InformerHealth {
  /** The initial list has been delivered to the handlers. */
  readonly synced: boolean;
  /**
   * Milliseconds since the server last sent this informer anything (a
   * watch response, event or bookmark, a list page); undefined before its
   * first answer.
   */
  readonly idleMs: number | undefined;
  /** Lists completed after the initial one (after a 410 Expired, a refusal or another failure). */
  readonly relists: number;
  /** Set while list/watch requests fail (backing off or retrying); undefined when healthy. */
  readonly failing: InformerFailure | undefined;
  /** How the informer lists: as a streaming watch (`sendInitialEvents`) or a paginated LIST, when it knows. */
  readonly listMode?: 'streaming' | 'paginated';
}
