// The shared audit of the freeze test: what each replica appends (its
// validity intervals, its passes, its write attempts), what kube-apiserver's
// own audit log says it accepted, and the checks the test runs on both.
// Times are epoch milliseconds: `performance.timeOrigin + performance.now()`
// in the replicas, the API server's wall clock in its audit log.

/** One line a replica appends to the shared audit file. */
export type FreezeAuditLine =
  | { readonly replica: string; readonly event: 'valid-from' | 'valid-until'; readonly at: number }
  | {
      readonly replica: string;
      readonly event: 'pass';
      /** When the handler's first line ran. */
      readonly at: number;
      /** When the replica's validity was checked, in the same synchronous stretch, before the handler ran; null: no check. */
      readonly admittedAt: number | null;
      readonly instance: string;
    }
  | {
      readonly replica: string;
      readonly event: 'write';
      readonly at: number;
      readonly instance: string;
      readonly value: number;
      /** `attempt` (logged right before the client is called), then `sent` (answered 2xx), `refused` (LeaseExpiredError, never sent) or the error's name. */
      readonly outcome: string;
    }
  | { readonly replica: string; readonly event: 'share'; readonly at: number; readonly members: readonly string[] };

/** A write kube-apiserver accepted, from its audit log. */
export interface AcceptedWrite {
  /** The replica, from the request's user agent `freeze/<replica>`. */
  readonly replica: string;
  /** `namespace/name` of the object written. */
  readonly object: string;
  /** When the server received the request (epoch ms, microsecond precision). */
  readonly receivedAt: number;
}

/** `[from, until)` in epoch ms; `until` is +Infinity while still valid. */
export interface Interval {
  readonly from: number;
  readonly until: number;
}

/** Parses JSON lines (the replicas' audit); throws naming the line that is not JSON. */
export function parseLines<T>(text: string, what: string): T[] {
  const out: T[] = [];
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    try {
      out.push(JSON.parse(raw) as T);
    } catch (err) {
      throw new Error(`${what} line ${i + 1} is not JSON: ${JSON.stringify(raw.slice(0, 120))}`, { cause: err });
    }
  });
  return out;
}

/** `2026-12-01T16:10:00.123456Z` to epoch ms with the microseconds kept. */
export function parseMicroTime(text: string): number {
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?Z$/.exec(text);
  if (m === null) throw new Error(`not an RFC 3339 UTC time: ${JSON.stringify(text)}`);
  const fraction = Number(`0.${m[2] ?? '0'}`) * 1000;
  return Date.parse(`${m[1]}Z`) + fraction;
}

/** The successful configmap writes of kube-apiserver's audit log (stage ResponseComplete) whose user agent is `freeze/<replica>`. */
export function acceptedWrites(auditLogText: string): AcceptedWrite[] {
  interface Event {
    stage?: string;
    verb?: string;
    userAgent?: string;
    objectRef?: { resource?: string; namespace?: string; name?: string };
    responseStatus?: { code?: number };
    requestReceivedTimestamp?: string;
  }
  const out: AcceptedWrite[] = [];
  for (const e of parseLines<Event>(auditLogText, 'kube-apiserver audit')) {
    const agent = /^freeze\/(\S+)$/.exec(e.userAgent ?? '');
    const code = e.responseStatus?.code ?? 0;
    if (e.stage !== 'ResponseComplete' || agent === null || e.objectRef?.resource !== 'configmaps') continue;
    if (!['patch', 'update', 'create'].includes(e.verb ?? '') || code < 200 || code >= 300) continue;
    out.push({
      replica: agent[1]!,
      object: `${e.objectRef.namespace ?? ''}/${e.objectRef.name ?? ''}`,
      receivedAt: parseMicroTime(e.requestReceivedTimestamp ?? ''),
    });
  }
  return out;
}

/** Each replica's validity intervals, from its `valid-from` and `valid-until` lines in order. */
export function validityOf(lines: readonly FreezeAuditLine[]): Map<string, Interval[]> {
  const out = new Map<string, Interval[]>();
  const open = new Map<string, number>();
  for (const l of lines) {
    if (l.event === 'valid-from') open.set(l.replica, l.at);
    else if (l.event === 'valid-until') {
      const from = open.get(l.replica);
      if (from === undefined) throw new Error(`audit: ${l.replica} logged valid-until ${l.at} with no valid-from before it`);
      open.delete(l.replica);
      (out.get(l.replica) ?? out.set(l.replica, []).get(l.replica)!).push({ from, until: l.at });
    }
  }
  for (const [replica, from] of open)
    (out.get(replica) ?? out.set(replica, []).get(replica)!).push({ from, until: Number.POSITIVE_INFINITY });
  return out;
}

/** True when `at` falls in one of `intervals`. */
export const within = (intervals: readonly Interval[] | undefined, at: number): boolean =>
  (intervals ?? []).some((i) => at >= i.from && at < i.until);

/** Each time a key's value went down, in the order observed: `key: a -> b`. */
export function decreases(observed: readonly { readonly key: string; readonly value: number }[]): string[] {
  const last = new Map<string, number>();
  const found: string[] = [];
  for (const { key, value } of observed) {
    const before = last.get(key);
    if (before !== undefined && value < before) found.push(`${key}: ${before} -> ${value}`);
    last.set(key, Math.max(value, before ?? value));
  }
  return found;
}

/**
 * The longest time any touch waited for its child to show it: for each
 * touch (key, value, time acknowledged), the first observation of the key
 * at that value or later, minus the touch's time (0 if observed first). A touch never served is
 * counted up to `endAt`.
 */
export function longestUnserved(
  touches: readonly { readonly key: string; readonly value: number; readonly at: number }[],
  observed: readonly { readonly key: string; readonly value: number; readonly at: number }[],
  endAt: number,
): { readonly ms: number; readonly key: string | undefined; readonly at: number | undefined } {
  const byKey = new Map<string, { value: number; at: number }[]>();
  for (const o of observed) (byKey.get(o.key) ?? byKey.set(o.key, []).get(o.key)!).push(o);
  let worst = { ms: 0, key: undefined as string | undefined, at: undefined as number | undefined };
  for (const t of touches) {
    const served = (byKey.get(t.key) ?? []).find((o) => o.value >= t.value);
    const ms = Math.max(0, (served?.at ?? endAt) - t.at);
    if (ms > worst.ms) worst = { ms, key: t.key, at: t.at };
  }
  return worst;
}
