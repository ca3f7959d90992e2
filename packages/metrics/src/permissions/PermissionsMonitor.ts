import type { Logger } from '@protean/core';
import { Counter, type Registry } from 'prom-client';
import type { ReadinessCheck } from '../MetricsServer.js';
import { describeAccess, accessResourceName, type AccessLogView, type ObservedAccessRecord } from './AccessLogView.js';

/** One verb on one resource (or non-resource URL), as the status page lists it. */
export interface PermissionRow {
  /** `configmaps`, `webapps.demo.protean.dev/status`, or a path for a non-resource URL. */
  readonly resource: string;
  readonly verb: string;
  /** Where it was used, sorted; `''` for cluster-wide (or a non-resource URL). */
  readonly namespaces: readonly string[];
  /** Of those, where the latest answer refused it. */
  readonly denied: readonly string[];
  /** The server's messages of those refusals, when known. */
  readonly messages: readonly string[];
}

/** `/statusz/permissions`: the access log's entries (what `protean-permissions` reads), the refusals in words, and a row per resource and verb. */
export interface PermissionsStatus {
  readonly accesses: readonly ObservedAccessRecord[];
  /** `forbidden: patch configmaps in namespace demo ("...")`, one per access refused now. */
  readonly denied: readonly string[];
  /** Sorted by resource, then verb in RBAC's usual order. */
  readonly rows: readonly PermissionRow[];
}

const VERB_ORDER = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection', 'post', 'put'];

/**
 * Watches a connection pool's access log for refusals: a `/readyz` check
 * (`permissions`) that fails while the latest answer to some access is a
 * 403, naming each; one warn line the first time an access is refused (not
 * per retry) and an info line when it is allowed again; a counter of
 * refused requests; and the JSON of `/statusz/permissions`.
 *
 * Easy to get wrong: an access is judged by its *latest* answer. A
 * refused write that nothing retries (its instance was deleted, the
 * handler took another path) keeps the check failing until the same
 * access is allowed once; the check names it, so it can be granted or the
 * pod restarted.
 */
export class PermissionsMonitor {
  private readonly unsubscribe: () => unknown;
  private readonly counted = new Map<string, number>();

  /**
   * @param logger - resolved at each transition (they are rare), so a
   * logger bound after construction is used; a component child logger.
   */
  constructor(
    private readonly log: AccessLogView,
    private readonly logger: () => Logger | undefined,
    registry: Registry,
  ) {
    const counted = this.counted;
    const entries = (): readonly ObservedAccessRecord[] => log.entries();
    new Counter({
      name: 'dynamic_controller_forbidden_requests_total',
      help: 'Requests the API server refused (403 from the authorizer), per verb and resource (resource.group/subresource, or the path of a non-resource URL).',
      labelNames: ['verb', 'resource'] as const,
      registers: [registry],
      collect() {
        for (const r of entries()) {
          const before = counted.get(r.key) ?? 0;
          if (r.denials === before) continue;
          counted.set(r.key, r.denials);
          const a = r.access;
          this.inc({ verb: a.verb, resource: a.kind === 'resource' ? accessResourceName(a) : a.path }, r.denials - before);
        }
      },
    });
    this.unsubscribe = log.onTransition((record, transition) => this.report(record, transition));
    // Refusals from before instrumenting are told now, once.
    for (const r of log.entries()) if (r.denied) this.report(r, 'denied');
  }

  /** The `/readyz` check `permissions`. */
  readiness(): ReadinessCheck {
    return {
      name: 'permissions',
      ready: () => {
        const denied = this.deniedNow();
        return denied.length === 0 ? { ready: true } : { ready: false, reason: denied.join('; ') };
      },
    };
  }

  /** What `/statusz/permissions` serves, and the status page's Permissions section. */
  status(): PermissionsStatus {
    const accesses = this.log.entries();
    return { accesses, denied: accesses.filter((r) => r.denied).map(describeRefusal), rows: rowsOf(accesses) };
  }

  /** Stops listening to the access log. */
  stop(): void {
    this.unsubscribe();
  }

  private deniedNow(): string[] {
    return this.log
      .entries()
      .filter((r) => r.denied)
      .map(describeRefusal);
  }

  private report(record: ObservedAccessRecord, transition: 'denied' | 'allowed'): void {
    const logger = this.logger();
    if (logger === undefined) return;
    const fields = { access: record.access, status: record.status, serverMessage: record.message };
    if (transition === 'denied') logger.warn(fields, describeRefusal(record));
    else logger.info(fields, `allowed again: ${describeAccess(record.access)}`);
  }
}

/** `forbidden: patch configmaps in namespace demo ("<server message>")`, or `(403)` when the body was not read. */
export function describeRefusal(record: ObservedAccessRecord): string {
  const why = record.message === undefined ? String(record.status) : JSON.stringify(record.message);
  return `forbidden: ${describeAccess(record.access)} (${why})`;
}

function rowsOf(accesses: readonly ObservedAccessRecord[]): PermissionRow[] {
  const rows = new Map<string, { resource: string; verb: string; namespaces: Set<string>; denied: Set<string>; messages: Set<string> }>();
  for (const r of accesses) {
    const a = r.access;
    const resource = a.kind === 'resource' ? accessResourceName(a) : a.path;
    const key = `${resource} ${a.verb}`;
    let row = rows.get(key);
    if (row === undefined) rows.set(key, (row = { resource, verb: a.verb, namespaces: new Set(), denied: new Set(), messages: new Set() }));
    const ns = a.kind === 'resource' ? (a.namespace ?? '') : '';
    row.namespaces.add(ns);
    if (r.denied) {
      row.denied.add(ns);
      if (r.message !== undefined) row.messages.add(r.message);
    }
  }
  return [...rows.values()]
    .map((r) => ({
      resource: r.resource,
      verb: r.verb,
      namespaces: [...r.namespaces].sort(),
      denied: [...r.denied].sort(),
      messages: [...r.messages],
    }))
    .sort((x, y) => (x.resource < y.resource ? -1 : x.resource > y.resource ? 1 : VERB_ORDER.indexOf(x.verb) - VERB_ORDER.indexOf(y.verb)));
}
