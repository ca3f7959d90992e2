import { afterEach, describe, expect, it } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '@protean/core';
import { detectShardSelectorSupport } from './detectShardSelectorSupport.js';
import { fnv1a64 } from './fnv1a64.js';
import { closeLocalApiServers, localApiServer } from './localApiServer.testkit.js';

interface Namespace {
  readonly metadata: { readonly name: string; readonly uid: string };
}

const NAMESPACES: Namespace[] = ['default', 'kube-system', 'kube-public'].map((name) => ({ metadata: { name, uid: `uid-${name}` } }));

afterEach(closeLocalApiServers);

/** An API server that answers the Namespace LIST: with `filters`, honouring the probe's range `[0, 1)` as the gate does. */
async function apiServer(
  namespaces: readonly Namespace[],
  answer: { filters?: boolean; status?: number } = {},
): Promise<{ kubeConfig: KubeConfig; paths: string[] }> {
  const paths: string[] = [];
  const kubeConfig = await localApiServer((req, res) => {
    paths.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://x');
    const selector = url.searchParams.get('shardSelector');
    if (answer.status !== undefined && selector !== null) {
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end('{"kind":"Status"}');
      return;
    }
    const items = selector !== null && answer.filters === true ? namespaces.filter((n) => fnv1a64(n.metadata.uid) < 1n) : namespaces;
    const limit = Number(url.searchParams.get('limit') ?? '0');
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ kind: 'NamespaceList', items: limit > 0 ? items.slice(0, limit) : items }));
  });
  return { kubeConfig, paths };
}

/** A logger whose lines land in `lines`. */
function capture(lines: Record<string, unknown>[]): Logger {
  const logger = { info: (fields: object, msg: string) => void lines.push({ ...fields, msg }), child: () => logger };
  return logger as unknown as Logger;
}

describe('detectShardSelectorSupport', () => {
  it("answers 'server' when the server leaves out the namespaces it holds outside the range", async () => {
    const { kubeConfig, paths } = await apiServer(NAMESPACES, { filters: true });
    const lines: Record<string, unknown>[] = [];
    const result = await detectShardSelectorSupport(kubeConfig, { logger: capture(lines) });
    expect(result).toEqual({ mode: 'server', conclusive: true, reason: expect.stringContaining('while the server holds namespaces') });
    expect(paths).toHaveLength(2);
    expect(paths[1]).toBe('/api/v1/namespaces?limit=1');
    expect(lines.at(-1)).toMatchObject({ mode: 'server', conclusive: true });
  });

  it("answers 'client' when the server ignores the selector, from one LIST", async () => {
    const { kubeConfig, paths } = await apiServer(NAMESPACES);
    const result = await detectShardSelectorSupport(kubeConfig);
    expect(result).toEqual({
      mode: 'client',
      conclusive: true,
      reason: "the probe LIST returned 3 namespaces outside the selector's range",
    });
    expect(paths).toHaveLength(1);
  });

  it("answers 'client', inconclusive, and logs so, when the server holds no namespace at all (an empty answer proves nothing)", async () => {
    for (const filters of [true, false]) {
      const { kubeConfig } = await apiServer([], { filters });
      const lines: Record<string, unknown>[] = [];
      const result = await detectShardSelectorSupport(kubeConfig, { logger: capture(lines) });
      expect(result.mode).toBe('client');
      expect(result.conclusive).toBe(false);
      expect(result.reason).toContain('holds no namespace');
      expect(lines.at(-1)).toMatchObject({ mode: 'client', conclusive: false, msg: expect.stringContaining('could not tell') });
    }
  });

  it("answers 'client' when the server refuses the parameter (conclusive) or the LIST is forbidden (inconclusive)", async () => {
    const refused = await apiServer(NAMESPACES, { status: 400 });
    expect(await detectShardSelectorSupport(refused.kubeConfig)).toEqual({
      mode: 'client',
      conclusive: true,
      reason: 'the probe LIST answered 400',
    });
    const forbidden = await apiServer(NAMESPACES, { status: 403 });
    expect(await detectShardSelectorSupport(forbidden.kubeConfig)).toEqual({
      mode: 'client',
      conclusive: false,
      reason: 'the probe LIST answered 403',
    });
  });
});
