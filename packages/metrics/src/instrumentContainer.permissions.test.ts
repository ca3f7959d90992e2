import { afterEach, describe, expect, it } from '@jest/globals';
import { createLogger, type GroupVersionResource } from '@protean/core';
import { createTestController, type TestController } from '@protean/testing';
import type { MetricsServer } from './MetricsServer.js';
import { instrumentContainer, type ProteanMetrics } from './instrumentContainer.js';
import type { AccessLogView, ObservedAccess, ObservedAccessRecord } from './permissions/AccessLogView.js';
import type { PermissionsStatus } from './permissions/PermissionsMonitor.js';
import type { StatusPageStatus } from './statusPage/controllerStatusPage.js';

/*
 * The permissions check over an access log shaped like @protean/transport's
 * (the pool's accessLog): /readyz, one log line per refusal and recovery,
 * the counter, /statusz/permissions and the status page's section.
 */

const webapps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const PATCH_CM: ObservedAccess = { kind: 'resource', verb: 'patch', group: '', resource: 'configmaps', namespace: 'demo' };
const WATCH_STATUS: ObservedAccess = {
  kind: 'resource',
  verb: 'update',
  group: 'demo.protean.dev',
  resource: 'webapps',
  subresource: 'status',
  namespace: 'demo',
};
const LIST_WEBAPPS: ObservedAccess = { kind: 'resource', verb: 'list', group: 'demo.protean.dev', resource: 'webapps' };
const DENIED_PATCH =
  'configmaps "a" is forbidden: User "system:serviceaccount:ctl:ctl" cannot patch resource "configmaps" in API group "" in the namespace "demo"';

/** An access log that answers as told, with transport's transition rules: a listener hears each change once. */
class ScriptedAccessLog implements AccessLogView {
  private readonly records = new Map<string, ObservedAccessRecord>();
  private readonly listeners = new Set<(r: ObservedAccessRecord, t: 'denied' | 'allowed') => void>();

  answer(access: ObservedAccess, status: number, message?: string): void {
    const key = JSON.stringify(access);
    const before = this.records.get(key);
    const denied = status === 403;
    const record: ObservedAccessRecord = {
      access,
      key,
      requests: (before?.requests ?? 0) + 1,
      denials: (before?.denials ?? 0) + (denied ? 1 : 0),
      denied,
      status,
      ...(denied && message !== undefined ? { message } : {}),
      lastAtMs: 1,
    };
    this.records.set(key, record);
    if ((before?.denied ?? false) !== denied) for (const l of this.listeners) l(record, denied ? 'denied' : 'allowed');
  }

  entries(): ObservedAccessRecord[] {
    return [...this.records.values()];
  }

  onTransition(listener: (r: ObservedAccessRecord, t: 'denied' | 'allowed') => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

let t: TestController | undefined;
let server: MetricsServer | undefined;
let metrics: ProteanMetrics;

afterEach(async () => {
  await t?.dispose();
  await server?.stop();
  t = server = undefined;
});

async function start(log: ScriptedAccessLog | undefined, statusPage = false): Promise<Record<string, unknown>[]> {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  t = createTestController({
    logger,
    configure: (container) => {
      metrics = instrumentContainer(container, {
        processMetrics: false,
        statusPage,
        ...(log === undefined ? {} : { connectionPool: { accessLog: log } }),
      });
    },
  });
  await t.start();
  await t.register(webapps, async () => {});
  server = await metrics.serve();
  return lines;
}

async function get(path: string): Promise<[number, string]> {
  const res = await fetch(`${server!.url}${path}`);
  return [res.status, await res.text()];
}

const permissionLines = (lines: Record<string, unknown>[]) =>
  lines.filter((l) => l['component'] === 'permissions').map((l) => [l['level'], l['msg']]);

describe('instrumentContainer({ connectionPool }): permissions', () => {
  it("fails /readyz naming each refused access with the server's message, and passes once it is allowed again", async () => {
    const log = new ScriptedAccessLog();
    await start(log);
    log.answer(LIST_WEBAPPS, 200);
    log.answer(PATCH_CM, 200);
    expect(await get('/readyz')).toEqual([200, expect.stringContaining('[+]permissions ok')]);
    log.answer(PATCH_CM, 403, DENIED_PATCH);
    log.answer(WATCH_STATUS, 403);
    const [status, body] = await get('/readyz?verbose');
    expect(status).toBe(503);
    expect(body).toContain(
      `[-]permissions failed: forbidden: patch configmaps in namespace demo (${JSON.stringify(DENIED_PATCH)}); forbidden: update webapps.demo.protean.dev/status in namespace demo (403)`,
    );
    log.answer(PATCH_CM, 200);
    log.answer(WATCH_STATUS, 200);
    expect(await get('/readyz')).toEqual([200, expect.stringContaining('[+]permissions ok')]);
  });

  it('logs one warn line the first time an access is refused, none per retry, and one info line when it is allowed again', async () => {
    const log = new ScriptedAccessLog();
    const lines = await start(log);
    for (let i = 0; i < 5; i++) log.answer(PATCH_CM, 403, DENIED_PATCH);
    log.answer(PATCH_CM, 200);
    log.answer(PATCH_CM, 200);
    expect(permissionLines(lines)).toEqual([
      [40, `forbidden: patch configmaps in namespace demo (${JSON.stringify(DENIED_PATCH)})`],
      [30, 'allowed again: patch configmaps in namespace demo'],
    ]);
    const warn = lines.find((l) => l['component'] === 'permissions' && l['level'] === 40);
    expect(warn).toMatchObject({ access: PATCH_CM, status: 403, serverMessage: DENIED_PATCH });
  });

  it('tells refusals recorded before it was instrumented, once', async () => {
    const log = new ScriptedAccessLog();
    log.answer(PATCH_CM, 403, DENIED_PATCH);
    const lines = await start(log);
    log.answer(PATCH_CM, 403, DENIED_PATCH);
    expect(permissionLines(lines)).toEqual([[40, `forbidden: patch configmaps in namespace demo (${JSON.stringify(DENIED_PATCH)})`]]);
  });

  it('counts refused requests per verb and resource', async () => {
    const log = new ScriptedAccessLog();
    await start(log);
    log.answer(PATCH_CM, 403, DENIED_PATCH);
    log.answer(PATCH_CM, 403, DENIED_PATCH);
    expect((await get('/metrics'))[1]).toContain('dynamic_controller_forbidden_requests_total{verb="patch",resource="configmaps"} 2');
    log.answer(PATCH_CM, 200);
    log.answer(WATCH_STATUS, 403);
    const text = (await get('/metrics'))[1];
    expect(text).toContain('dynamic_controller_forbidden_requests_total{verb="patch",resource="configmaps"} 2');
    expect(text).toContain('dynamic_controller_forbidden_requests_total{verb="update",resource="webapps.demo.protean.dev/status"} 1');
  });

  it('serves the access log at /statusz/permissions with the refusals in words and a row per resource and verb', async () => {
    const log = new ScriptedAccessLog();
    await start(log);
    log.answer(LIST_WEBAPPS, 200);
    log.answer(PATCH_CM, 200);
    log.answer({ ...PATCH_CM, namespace: 'other' }, 403, DENIED_PATCH);
    log.answer({ kind: 'nonResource', verb: 'get', path: '/version' }, 200);
    const [status, body] = await get('/statusz/permissions');
    expect(status).toBe(200);
    const json = JSON.parse(body) as PermissionsStatus;
    expect(json.accesses).toEqual(log.entries());
    expect(json.denied).toEqual([`forbidden: patch configmaps in namespace other (${JSON.stringify(DENIED_PATCH)})`]);
    expect(json.rows).toEqual([
      { resource: '/version', verb: 'get', namespaces: [''], denied: [], messages: [] },
      { resource: 'configmaps', verb: 'patch', namespaces: ['demo', 'other'], denied: ['other'], messages: [DENIED_PATCH] },
      { resource: 'webapps.demo.protean.dev', verb: 'list', namespaces: [''], denied: [], messages: [] },
    ]);
  });

  it("adds the rows and refusals to the status page's status.json", async () => {
    const log = new ScriptedAccessLog();
    await start(log, true);
    log.answer(PATCH_CM, 403, DENIED_PATCH);
    const page = JSON.parse((await get('/statusz/status.json'))[1]) as StatusPageStatus;
    expect(page.permissions).toEqual({
      denied: [`forbidden: patch configmaps in namespace demo (${JSON.stringify(DENIED_PATCH)})`],
      rows: [{ resource: 'configmaps', verb: 'patch', namespaces: ['demo'], denied: ['demo'], messages: [DENIED_PATCH] }],
    });
  });

  it('is off without a connection pool: no check, no /statusz/permissions, no section data', async () => {
    await start(undefined, true);
    expect((await get('/readyz'))[1]).not.toContain('permissions');
    expect((await get('/statusz/permissions'))[0]).toBe(404);
    expect(JSON.parse((await get('/statusz/status.json'))[1])).not.toHaveProperty('permissions');
    expect(metrics.permissions).toBeUndefined();
  });
});
