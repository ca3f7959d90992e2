import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import { KubeWatch, kubeRequest } from './kubeHttp.js';
import type { KubeApiServer } from './KubeApiServer.js';
import { startKubeApiServer } from './startKubeApiServer.js';

/** Whether a process with this pid still exists (signal 0 only checks). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Pids of processes whose command line mentions `needle`. */
function pidsMatching(needle: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', needle], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

/** The harness's temp dir, read from kube-apiserver's --cert-dir flag. */
function tempDirOf(server: KubeApiServer): string {
  const pid = pidsMatching(`secure-port=${new URL(server.url).port}`)[0];
  const args = pid === undefined ? '' : execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' });
  return /--cert-dir=(\S+)\/apiserver-certs/.exec(args)?.[1] ?? '';
}

describe('startKubeApiServer (watch cache on)', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await startKubeApiServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('serves /version v1.36.3 over TLS to the admin client certificate', async () => {
    const r = await kubeRequest(server.kubeConfig, 'GET', '/version');
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ major: '1', minor: '36', gitVersion: 'v1.36.3' });
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(server.etcdUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('keeps objects across restart() on the same URL', async () => {
    const core = server.kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'survivor' }, data: { k: 'v' } } });
    const urlBefore = server.url;
    await server.restart();
    expect(server.url).toBe(urlBefore);
    const after = await server.kubeConfig.makeApiClient(CoreV1Api).readNamespacedConfigMap({ namespace: 'default', name: 'survivor' });
    expect(after.data).toEqual({ k: 'v' });
  });

  it('gives a restricted user from kubeConfigFor() 403 on listing configmaps', async () => {
    const kc = server.kubeConfigFor('alice', ['team-a']);
    const r = await kubeRequest(kc, 'GET', '/api/v1/namespaces/default/configmaps');
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403 });
    expect(String(r.json['message'])).toContain('User "alice" cannot list resource "configmaps"');
  });

  it("keeps a bounded tail of both processes' output", () => {
    const [etcdPart = '', apiPart = ''] = server.logs().split('--- kube-apiserver ---\n');
    expect(etcdPart).toMatch(/^--- etcd ---\n.*"level":"warn"/s);
    // klog lines (I/W/E + MMDD) from the restarted process, and no more than the ring keeps.
    expect(apiPart).toMatch(/^[IWE]\d{4} /m);
    expect(apiPart.split('\n').length).toBeLessThanOrEqual(200);
  });
});

describe('startKubeApiServer (watch cache off)', () => {
  it('compact() makes a watch from an old resourceVersion end with an in-stream 410, and stop() leaves nothing behind', async () => {
    const server = await startKubeApiServer({ watchCache: false });
    let dir = '';
    try {
      dir = tempDirOf(server);
      expect(existsSync(dir)).toBe(true);
      const kc = server.kubeConfig;
      const created = await kubeRequest(kc, 'POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'old' } } });
      const oldRv = String((created.json['metadata'] as Record<string, unknown>)['resourceVersion']);
      // Two more writes, so the compaction revision is past oldRv + 1 (see tools/kube-apiserver/README.md).
      for (const name of ['a', 'b'])
        await kubeRequest(kc, 'POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name } } });
      const rev = await server.compact();
      expect(rev).toBeGreaterThan(Number(oldRv));
      const watch = await KubeWatch.open(kc, `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${oldRv}`);
      try {
        const [event] = await watch.waitForEvents(1);
        expect(event).toMatchObject({ type: 'ERROR', object: { kind: 'Status', reason: 'Expired', code: 410 } });
      } finally {
        watch.close();
      }
    } finally {
      const pids = [...pidsMatching(`secure-port=${new URL(server.url).port}`), ...pidsMatching(`listen-client-urls=${server.etcdUrl}`)];
      expect(pids.length).toBe(2);
      await server.stop();
      await server.stop(); // idempotent
      expect(pids.filter(alive)).toEqual([]);
      expect(dir).not.toBe('');
      expect(existsSync(dir)).toBe(false);
    }
  });
});
