import { describe, expect, it } from '@jest/globals';
import { AccessLog, type AccessTransition } from './AccessLog.js';

const forbidden = (message: string): string =>
  JSON.stringify({ kind: 'Status', status: 'Failure', message, reason: 'Forbidden', code: 403 });
const RBAC_PATCH =
  'configmaps "a" is forbidden: User "system:serviceaccount:ctl:ctl" cannot patch resource "configmaps" in API group "" in the namespace "demo"';
const RBAC_CREATE =
  'configmaps "a" is forbidden: User "system:serviceaccount:ctl:ctl" cannot create resource "configmaps" in API group "" in the namespace "demo"';
const CM = '/api/v1/namespaces/demo/configmaps';

function logWithTransitions(): { log: AccessLog; seen: [string, AccessTransition][] } {
  let t = 1000;
  const log = new AccessLog({ now: () => (t += 1) });
  const seen: [string, AccessTransition][] = [];
  log.onTransition((rec, transition) => seen.push([rec.key, transition]));
  return { log, seen };
}

describe('AccessLog', () => {
  it('counts answers per access and keeps the latest status and time', () => {
    const { log } = logWithTransitions();
    log.record('GET', `${CM}/a`, 200);
    log.record('GET', `${CM}/b`, 404);
    log.record('GET', `${CM}?watch=true`, 200);
    expect(log.entries()).toEqual([
      {
        access: { kind: 'resource', verb: 'get', group: '', resource: 'configmaps', namespace: 'demo' },
        key: 'get||configmaps||demo',
        requests: 2,
        denials: 0,
        denied: false,
        status: 404,
        lastAtMs: 1002,
      },
      {
        access: { kind: 'resource', verb: 'watch', group: '', resource: 'configmaps', namespace: 'demo' },
        key: 'watch||configmaps||demo',
        requests: 1,
        denials: 0,
        denied: false,
        status: 200,
        lastAtMs: 1003,
      },
    ]);
  });

  it('records a 403 with the server message as a refusal, tells listeners once, and again when it is allowed again', () => {
    const { log, seen } = logWithTransitions();
    log.record('PATCH', `${CM}/a`, 200);
    log.record('PATCH', `${CM}/a`, 403, forbidden(RBAC_PATCH));
    log.record('PATCH', `${CM}/b`, 403, forbidden(RBAC_PATCH));
    expect(log.denied()).toMatchObject([{ key: 'patch||configmaps||demo', denied: true, denials: 2, requests: 3, message: RBAC_PATCH }]);
    log.record('PATCH', `${CM}/a`, 200);
    expect(log.denied()).toEqual([]);
    expect(log.entries()[0]).not.toHaveProperty('message');
    expect(seen).toEqual([
      ['patch||configmaps||demo', 'denied'],
      ['patch||configmaps||demo', 'allowed'],
    ]);
  });

  it('counts a streamed 403 (no body read) as a refusal', () => {
    const { log, seen } = logWithTransitions();
    log.record('GET', `${CM}?watch=1`, 403);
    expect(log.denied()).toMatchObject([{ key: 'watch||configmaps||demo', status: 403 }]);
    expect(log.denied()[0]).not.toHaveProperty('message');
    expect(seen).toEqual([['watch||configmaps||demo', 'denied']]);
  });

  it('counts a 403 that another policy gave (not the authorizer) as allowed: authorization passed', () => {
    const { log, seen } = logWithTransitions();
    log.record(
      'POST',
      '/api/v1/namespaces/gone/events',
      403,
      forbidden('events "e" is forbidden: unable to create new content in namespace gone because it is being terminated'),
    );
    log.record('POST', `${CM}`, 403, forbidden('configmaps "a" is forbidden: exceeded quota: q, requested: count/configmaps=1'));
    log.record('POST', '/api/v1/namespaces/demo/pods', 403, forbidden('admission webhook "deny.example.com" denied the request: no'));
    expect(log.denied()).toEqual([]);
    expect(log.entries().map((e) => [e.key, e.status, e.denied])).toEqual([
      ['create||events||gone', 403, false],
      ['create||configmaps||demo', 403, false],
      ['create||pods||demo', 403, false],
    ]);
    expect(seen).toEqual([]);
  });

  it('counts a 403 whose body is not a Status, or whose message names no other policy, as a refusal', () => {
    const { log } = logWithTransitions();
    log.record('GET', `${CM}/a`, 403, 'forbidden');
    log.record('GET', `${CM}/a`, 403, '{"kind":"Status"');
    log.record('GET', `${CM}/a`, 403, forbidden('forbidden'));
    expect(log.denied()).toMatchObject([{ key: 'get||configmaps||demo', denials: 3, message: 'forbidden' }]);
  });

  it('records create as well for a patch or update answered 201 (the object was created)', () => {
    const { log } = logWithTransitions();
    log.record('PATCH', `${CM}/a?fieldManager=ctl`, 201);
    log.record('PUT', '/apis/coordination.k8s.io/v1/namespaces/ctl/leases/l', 201);
    log.record('PATCH', `${CM}/b`, 200);
    expect(log.entries().map((e) => [e.key, e.requests])).toEqual([
      ['patch||configmaps||demo', 2],
      ['create||configmaps||demo', 1],
      ['update|coordination.k8s.io|leases||ctl', 1],
      ['create|coordination.k8s.io|leases||ctl', 1],
    ]);
  });

  it('records a server-side apply refused its create check as patch allowed and create denied', () => {
    const { log, seen } = logWithTransitions();
    log.record('PATCH', `${CM}/a?fieldManager=ctl`, 403, forbidden(RBAC_CREATE));
    expect(log.entries().map((e) => [e.key, e.denied])).toEqual([
      ['patch||configmaps||demo', false],
      ['create||configmaps||demo', true],
    ]);
    expect(log.denied()[0]?.message).toBe(RBAC_CREATE);
    expect(seen).toEqual([['create||configmaps||demo', 'denied']]);
    // A later apply that creates again proves create is granted now.
    log.record('PATCH', `${CM}/b?fieldManager=ctl`, 201);
    expect(log.denied()).toEqual([]);
    expect(seen.at(-1)).toEqual(['create||configmaps||demo', 'allowed']);
  });

  it('marks a watch whose request was a streaming list (an informer list that may fall back to LIST)', () => {
    const { log } = logWithTransitions();
    log.record('GET', '/apis/coordination.k8s.io/v1/namespaces/ctl/leases?watch=true&fieldSelector=metadata.name%3Dl', 200);
    log.record('GET', `${CM}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`, 200);
    log.record('GET', `${CM}?watch=1&resourceVersion=7&allowWatchBookmarks=true`, 200);
    expect(log.entries().map((e) => [e.key, e.streamingList])).toEqual([
      ['watch|coordination.k8s.io|leases||ctl', undefined],
      ['watch||configmaps||demo', true],
    ]);
  });

  it('records non-resource URLs by path and method', () => {
    const { log } = logWithTransitions();
    log.record('GET', '/version', 200);
    log.record('GET', '/apis/apps/v1?timeout=32s', 200);
    log.record('GET', '/metrics', 403, forbidden('forbidden: User "u" cannot get path "/metrics"'));
    expect(log.entries().map((e) => [e.access, e.denied])).toEqual([
      [{ kind: 'nonResource', verb: 'get', path: '/version' }, false],
      [{ kind: 'nonResource', verb: 'get', path: '/apis/apps/v1' }, false],
      [{ kind: 'nonResource', verb: 'get', path: '/metrics' }, true],
    ]);
  });

  it('keeps calling the other listeners when one throws, and stops calling a removed one', () => {
    const log = new AccessLog();
    const calls: string[] = [];
    log.onTransition(() => {
      throw new Error('listener bug');
    });
    const off = log.onTransition((rec, t) => calls.push(`${t} ${rec.key}`));
    expect(() => log.record('GET', `${CM}/a`, 403)).not.toThrow();
    off();
    log.record('GET', `${CM}/a`, 200);
    expect(calls).toEqual(['denied get||configmaps||demo']);
  });

  it('forgets everything on clear()', () => {
    const log = new AccessLog();
    log.record('GET', `${CM}/a`, 403);
    log.clear();
    expect(log.entries()).toEqual([]);
  });
});
