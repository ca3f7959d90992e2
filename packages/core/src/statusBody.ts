/** A `metav1.StatusCause`. */
export interface StatusCause {
  /** What kind of cause: `FieldValueInvalid`, `FieldManagerConflict`, `ResourceVersionTooLarge`, ... */
  readonly reason?: string;
  /** The server's text about it. */
  readonly message?: string;
  /** The field it is about, as the server prints it (`.spec.replicas`). */
  readonly field?: string;
}

/** The `metav1.Status` body of an error response (or of a watch's `ERROR` event). */
export interface StatusBody {
  /** `Status`. */
  readonly kind?: string;
  /** The HTTP status the server meant (a watch `ERROR` event's only status). */
  readonly code?: number;
  /** Why, in one word: `NotFound`, `Conflict`, `AlreadyExists`, `Expired`, `Forbidden`, ... */
  readonly reason?: string;
  /** The server's text. */
  readonly message?: string;
  /** What the answer is about (`name`: the object; empty for a resource not served) and why, field by field. */
  readonly details?: {
    readonly name?: string;
    readonly group?: string;
    readonly kind?: string;
    readonly uid?: string;
    readonly causes?: readonly StatusCause[];
    readonly retryAfterSeconds?: number;
  };
}

/**
 * The `Status` in a response body, or `undefined` when the body is not
 * JSON. `anyObject: false` (the default) takes only a body whose `kind` is
 * `Status`; `true` takes any JSON object (a list/watch reads the `code` and
 * `reason` of whatever object the server sent).
 */
export function parseStatusBody(text: string, options: { readonly anyObject?: boolean } = {}): StatusBody | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed === null || typeof parsed !== 'object') return undefined;
    return options.anyObject === true || (parsed as { kind?: unknown }).kind === 'Status' ? (parsed as StatusBody) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The wait the server asked for, in milliseconds: its `Retry-After` header
 * (seconds, the form the API server sends; an HTTP date is honoured too),
 * else the body's `details.retryAfterSeconds`; `undefined` when neither
 * says.
 */
export function retryAfterMsOf(header: string | undefined, body: StatusBody | undefined): number | undefined {
  return parseRetryAfter(header) ?? secondsToMs(body?.details?.retryAfterSeconds);
}

function parseRetryAfter(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const seconds = Number(header.trim());
  if (Number.isFinite(seconds)) return secondsToMs(seconds);
  const at = Date.parse(header);
  // An HTTP date is wall time: only the wall clock can turn it into a delay.
  // eslint-disable-next-line no-restricted-properties
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function secondsToMs(seconds: number | undefined): number | undefined {
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}
