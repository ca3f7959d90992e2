import { KubeApiError } from './KubeApiError.js';

/** The parts of a Kubernetes API error worth a log line. */
export interface ApiStatus {
  /** The HTTP status (`404`, `409`, ...). */
  readonly code: number;
  /** The `Status` body's `reason` (`NotFound`, `Conflict`, ...), when the server sent one. */
  readonly reason?: string;
  /** The `Status` body's `message`, when the server sent one. */
  readonly message?: string;
  /** The `Status` body's `details.name`: the object the answer is about (a NotFound names the object not found). */
  readonly name?: string;
}

/** How deep the `cause` chain is searched. */
const MAX_CAUSE_DEPTH = 8;

/**
 * The Kubernetes API status an error carries, or `undefined` when it is not
 * an HTTP error: a {@link KubeApiError} with a status (what every
 * `@protean/*` package throws), an `ApiException` from `@kubernetes/client-node` (numeric
 * `code`, `Status` body as a string or an object), an HTTP error with
 * `status`/`statusCode` or a `response` carrying one, or any of these as the
 * `cause` of a wrapping error (the first one found, outermost first).
 *
 * Easy to get wrong: Node network errors have a string `code`
 * (`ECONNRESET`), which is not a status.
 */
export function apiStatusOf(err: unknown): ApiStatus | undefined {
  for (const status of apiStatusChain(err)) return status;
  return undefined;
}

/** Every API status along the `cause` chain of `err`, outermost first. */
export function* apiStatusChain(err: unknown): Generator<ApiStatus> {
  for (let e: unknown = err, depth = 0; e !== null && typeof e === 'object' && depth < MAX_CAUSE_DEPTH; depth++) {
    if (e instanceof KubeApiError) {
      const code = httpCode(e.status);
      if (code !== undefined) yield statusOf(code, e.reason, e.body?.message, e.body?.details?.name);
      e = e.cause;
      continue;
    }
    const o = e as Record<string, unknown>;
    const body = parseBody(o['body']);
    const code =
      httpCode(o['code']) ?? httpCode(o['status']) ?? httpCode(o['statusCode']) ?? responseCode(o['response']) ?? httpCode(body?.['code']);
    if (code !== undefined) {
      const details = body?.['details'];
      const name = details !== null && typeof details === 'object' ? (details as Record<string, unknown>)['name'] : undefined;
      yield statusOf(code, body?.['reason'], body?.['message'], name);
    }
    e = o['cause'];
  }
}

/** An {@link ApiStatus}, leaving out the parts that are not non-empty strings. */
function statusOf(code: number, reason: unknown, message: unknown, name: unknown): ApiStatus {
  return {
    code,
    ...(typeof reason === 'string' && reason !== '' ? { reason } : {}),
    ...(typeof message === 'string' && message !== '' ? { message } : {}),
    ...(typeof name === 'string' && name !== '' ? { name } : {}),
  };
}

/** The message of an Error, or the value as a string: for log and error texts built from `unknown` causes. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * One short line for a log: `404 NotFound: configmaps "x" not found` for a
 * Kubernetes API error (wrapped or not), else the error's name and the
 * first line of its message. Headers, bodies and stacks are left out; log
 * the error itself at debug level for those.
 */
export function summarizeError(err: unknown): string {
  const status = apiStatusOf(err);
  const head = err instanceof Error ? firstLine(err.message) : firstLine(String(err));
  if (status === undefined) return err instanceof Error ? `${err.name}: ${head}` : head;
  const what = [String(status.code), status.reason].filter((x) => x !== undefined).join(' ');
  const detail = status.message ?? (isClientNodeBanner(head) ? undefined : head);
  return detail === undefined || detail === '' ? what : `${what}: ${truncate(detail)}`;
}

function httpCode(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= 100 && v < 600 ? v : undefined;
}

function responseCode(response: unknown): number | undefined {
  if (response === null || typeof response !== 'object') return undefined;
  const r = response as Record<string, unknown>;
  return httpCode(r['status']) ?? httpCode(r['statusCode']);
}

function parseBody(body: unknown): Record<string, unknown> | undefined {
  if (body !== null && typeof body === 'object') return body as Record<string, unknown>;
  if (typeof body === 'string' && body.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(body);
      if (parsed !== null && typeof parsed === 'object') return parsed as Record<string, unknown>;
    } catch {
      // not JSON: not a Status body
    }
  }
  return undefined;
}

/** client-node's `ApiException` message starts `HTTP-Code: 404`, which says nothing the code does not. */
function isClientNodeBanner(line: string): boolean {
  return /^HTTP-Code: \d+$/.test(line);
}

function firstLine(s: string): string {
  const nl = s.indexOf('\n');
  return truncate(nl === -1 ? s : s.slice(0, nl));
}

function truncate(s: string, max = 300): string {
  return s.length <= max ? s : `${s.slice(0, max)}…`;
}
