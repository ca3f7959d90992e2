import type { KubeAccess } from './kubeAccessOf.js';
import { accessOfParsed, keyOfParsed, parseKubeAccess, type ParsedKubeAccess } from './parseKubeAccess.js';

/** What an {@link AccessLog} knows of one access (verb, group, resource, subresource, namespace). */
export interface AccessRecord {
  readonly access: KubeAccess;
  /** {@link kubeAccessKey} of `access`. */
  readonly key: string;
  /** Answers received for it (any status). */
  readonly requests: number;
  /** Of those, answers that refused it (403 from the authorizer). */
  readonly denials: number;
  /** The latest answer refused it. */
  readonly denied: boolean;
  /** The HTTP status of the latest answer. */
  readonly status: number;
  /** The server's `Status.message` of the latest refusal, when its body was read (buffered requests); unset otherwise. */
  readonly message?: string;
  /** Wall-clock time of the latest answer, in milliseconds since the epoch. */
  readonly lastAtMs: number;
  /**
   * Set on a `watch` when one of its requests was a streaming list
   * (`sendInitialEvents=true`): an informer's list, which falls back to a
   * paginated LIST where the server cannot stream, so it needs `list` too.
   */
  readonly streamingList?: true;
}

/** An access changed from allowed (or never seen) to refused, or from refused to allowed. */
export type AccessTransition = 'denied' | 'allowed';

/** Called by {@link AccessLog.onTransition}. */
export type AccessTransitionListener = (record: AccessRecord, transition: AccessTransition) => void;

/** Options of an {@link AccessLog}. */
export interface AccessLogOptions {
  /** Wall clock for {@link AccessRecord.lastAtMs}. Default `Date.now`. */
  readonly now?: () => number;
}

interface MutableRecord {
  access: KubeAccess;
  key: string;
  requests: number;
  denials: number;
  denied: boolean;
  status: number;
  message: string | undefined;
  lastAtMs: number;
  streamingList: boolean;
}

/** `User "x" cannot patch resource "configmaps" ...` / `... cannot get path "/metrics"`: the authorizer's refusal, naming the verb. */
const AUTHORIZER_REFUSAL = /\bcannot (\w+) (?:resource|path) "/;
/**
 * `<object> is forbidden: <reason>` where the reason is not the authorizer's
 * (`User "..." cannot ...`): a terminating namespace, a quota, PodSecurity,
 * a ValidatingAdmissionPolicy; and admission webhooks' own form.
 */
const OTHER_POLICY = /\bis forbidden: (?!User ")|^admission webhook /;

/**
 * Every access a {@link KubeConnectionPool} sent, with the latest answer:
 * what permissions the process used, and which of them the server refused.
 * One per pool (`pool.accessLog`).
 *
 * A 403 is a refusal unless its `Status` message (read for buffered
 * requests) says another policy refused it, not the authorizer
 * (`<object> is forbidden: <reason>` with a reason other than the
 * authorizer's `User "..." cannot ...`: a namespace being terminated, a
 * quota, PodSecurity; or `admission webhook ... denied the request`):
 * those passed authorization and count as allowed. A 403 whose server message says the authorizer
 * refused another verb than the request's (`cannot create resource` for a
 * server-side apply or a `PUT` that would create the object) is recorded
 * against that verb. A `PATCH` or `PUT` answered 201 created the object,
 * which the server also checks as `create`: both are recorded as allowed.
 * Requests that got no answer (network failures, aborts) are not recorded.
 *
 * Easy to get wrong: "denied" is the *latest* answer per access; a create
 * refused during a server-side apply stays denied until a later apply
 * creates an object again (an apply that finds the object exists does not
 * check `create`).
 */
export class AccessLog {
  private readonly records = new Map<string, MutableRecord>();
  private readonly listeners = new Set<AccessTransitionListener>();
  private readonly now: () => number;

  constructor(options: AccessLogOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Records the answer `status` to `method` `pathAndQuery`; `body` is the
   * response body when it was read (its `Status.message` names a refusal).
   */
  record(method: string, pathAndQuery: string, status: number, body?: string): void {
    const p = parseKubeAccess(method, pathAndQuery);
    const createsOnWrite = p.resource && (p.verb === 'patch' || p.verb === 'update');
    const streaming = p.verb === 'watch' && pathAndQuery.includes('sendInitialEvents=true');
    if (status !== 403) {
      this.apply(p, p.verb, status, false, undefined, streaming);
      if (status === 201 && createsOnWrite) this.apply(p, 'create', status, false, undefined);
      return;
    }
    const message = body === undefined ? undefined : statusMessageOf(body);
    if (message === undefined) {
      this.apply(p, p.verb, status, true, undefined, streaming);
      return;
    }
    const refused = AUTHORIZER_REFUSAL.exec(message);
    if (refused === null && OTHER_POLICY.test(message)) {
      // Authorization passed; another policy (admission, quota, a terminating namespace) refused it.
      this.apply(p, p.verb, status, false, undefined, streaming);
      return;
    }
    if (createsOnWrite && refused?.[1] === 'create') {
      // The server allowed the patch or update, then refused to create the object it would have made.
      this.apply(p, p.verb, status, false, undefined, streaming);
      this.apply(p, 'create', status, true, message);
      return;
    }
    this.apply(p, p.verb, status, true, message, streaming);
  }

  /** A snapshot of every access recorded so far, in the order first seen. */
  entries(): AccessRecord[] {
    return [...this.records.values()].map(snapshot);
  }

  /** The accesses whose latest answer was a refusal. */
  denied(): AccessRecord[] {
    const out: AccessRecord[] = [];
    for (const r of this.records.values()) if (r.denied) out.push(snapshot(r));
    return out;
  }

  /**
   * Calls `listener` whenever an access is refused after being allowed or
   * never seen (`denied`), and when a refused access is allowed again
   * (`allowed`); not for repeated answers of the same kind. Returns a
   * function that removes the listener. A listener that throws is ignored.
   */
  onTransition(listener: AccessTransitionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Forgets every access recorded so far (listeners stay). */
  clear(): void {
    this.records.clear();
  }

  /** Records one answer for the parse `p` with `verb`: a key built and looked up; an object only for an access not seen before. */
  private apply(p: ParsedKubeAccess, verb: string, status: number, denied: boolean, message: string | undefined, streaming = false): void {
    const key = keyOfParsed(p, verb);
    let r = this.records.get(key);
    const was = r?.denied ?? false;
    if (r === undefined) {
      r = { access: accessOfParsed(p, verb), key, requests: 0, denials: 0, denied, status, message, lastAtMs: 0, streamingList: false };
      this.records.set(key, r);
    }
    if (streaming) r.streamingList = true;
    r.requests += 1;
    r.status = status;
    r.lastAtMs = this.now();
    r.denied = denied;
    if (denied) {
      r.denials += 1;
      r.message = message;
    } else r.message = undefined;
    if (denied !== was) this.emit(r, denied ? 'denied' : 'allowed');
  }

  private emit(r: MutableRecord, transition: AccessTransition): void {
    if (this.listeners.size === 0) return;
    const record = snapshot(r);
    for (const listener of [...this.listeners]) {
      try {
        listener(record, transition);
      } catch {
        // A listener must not break the request that reported the answer.
      }
    }
  }
}

function snapshot(r: MutableRecord): AccessRecord {
  return {
    access: r.access,
    key: r.key,
    requests: r.requests,
    denials: r.denials,
    denied: r.denied,
    status: r.status,
    ...(r.message === undefined ? {} : { message: r.message }),
    lastAtMs: r.lastAtMs,
    ...(r.streamingList ? { streamingList: true as const } : {}),
  };
}

/** The `message` of a `metav1.Status` body; undefined for anything else. */
function statusMessageOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { kind?: unknown; message?: unknown } | null;
    return typeof parsed === 'object' && parsed !== null && typeof parsed.message === 'string' ? parsed.message : undefined;
  } catch {
    return undefined;
  }
}
