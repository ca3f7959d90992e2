import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { waitFor } from '@protean/testing';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { USAGE } from './cli.js';
import { WEBAPP } from './kinds.js';
import { runCli, type CliIo } from './runCli.js';
import type { HeldDemo } from './runDemo.js';
import type { WebAppStatus } from './WebAppObject.js';

interface Captured {
  io: CliIo;
  out: string[];
  err: string[];
  logs: string[];
  stop: AbortController;
  ready: Promise<string>;
}

function capture(env: Record<string, string> = {}): Captured {
  const out: string[] = [];
  const err: string[] = [];
  const logs: string[] = [];
  const stop = new AbortController();
  let onReady: (url: string) => void = () => {};
  const ready = new Promise<string>((resolve) => (onReady = resolve));
  const io: CliIo = {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    env,
    stop: stop.signal,
    logDestination: { write: (msg: string) => void logs.push(msg) },
    onClusterReady: (url) => onReady(url),
  };
  return { io, out, err, logs, stop, ready };
}

describe('runCli', () => {
  it('prints the usage for --help and exits 0', async () => {
    const c = capture();
    expect(await runCli(['--help'], c.io)).toBe(0);
    expect(c.out).toEqual([USAGE]);
  });

  it('exits 2 with a clear error for an unknown argument', async () => {
    const c = capture();
    expect(await runCli(['--bogus'], c.io)).toBe(2);
    expect(c.err).toEqual(['error: unknown option "--bogus"', 'run with --help for usage']);
    expect(c.out).toEqual([]);
  });

  it('exits 2 naming --replicas when it asks for fewer than two replicas', async () => {
    const c = capture();
    expect(await runCli(['--replicas', '1'], c.io)).toBe(2);
    expect(c.err).toEqual(['error: option --replicas must be an integer from 2 to 12, got "1"', 'run with --help for usage']);
    expect(c.out).toEqual([]);
  });

  it('exits 1 and names the expectation that failed when a step does not converge in time', async () => {
    const c = capture();
    // 1 ms cannot be enough: the first reconcile waits at least for the ConfigMap informer to sync.
    expect(await runCli(['--step-timeout-ms', '1'], c.io)).toBe(1);
    const failed = c.out.find((l) => l.includes('FAILED:'));
    expect(failed).toMatch(/not true within 1 ms \(last seen: .+\)/);
    expect(c.out.find((l) => l.startsWith('result:'))).toMatch(/^result: +FAILED: /);
  }, 120_000);

  it('with --hold, keeps serving after the summary: WebApp registered again, its instances on the status page, exit 0 on stop', async () => {
    const c = capture();
    let onHold: (h: HeldDemo) => void = () => {};
    const holding = new Promise<HeldDemo>((resolve) => (onHold = resolve));
    const exit = runCli(['--hold'], { ...c.io, onDemoHold: (h) => onHold(h) });
    const held = await holding;
    expect(c.out.some((l) => l.startsWith('result:') && l.includes('converged: all 12 steps'))).toBe(true);
    expect(c.out.at(-1)).toMatch(/\] status page: http:\/\/127\.0\.0\.1:\d+\/statusz$/);
    interface Status {
      instances: { namespace: string; name: string; watches: { nodeId: string }[] }[];
    }
    let status: Status = { instances: [] };
    await waitFor(
      async () => {
        status = (await (await fetch(`${held.statusPageUrl ?? ''}/status.json`)).json()) as Status;
        return status.instances.length === 3 && status.instances.every((i) => i.watches.length === 2);
      },
      { timeoutMs: 10_000 },
    );
    expect(status.instances.map((i) => `${i.namespace}/${i.name} ${i.watches.map((w) => w.nodeId).join(',')}`)).toEqual([
      'team-a/blog config,labelled',
      'team-a/shop config,labelled',
      'team-b/docs config,labelled',
    ]);
    c.stop.abort(new Error('test stop'));
    expect(await exit).toBe(0);
  }, 120_000);

  describe('against a cluster (--kubeconfig)', () => {
    let server: InMemoryApiServer;
    let dir: string;

    beforeEach(async () => {
      server = await InMemoryApiServer.start();
      dir = mkdtempSync(join(tmpdir(), 'webapp-cli-'));
    });

    afterEach(async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('defines the CRDs, reconciles WebApps, serves metrics, and exits 0 after a graceful stop', async () => {
      const file = join(dir, 'kubeconfig');
      writeFileSync(file, server.kubeConfig().exportConfig());
      const c = capture();

      const exit = runCli(['--kubeconfig', file, '--metrics-port', '0', '--metrics-host', '127.0.0.1'], c.io);
      const metricsUrl = await c.ready;
      server.create(WEBAPP.gvr, { metadata: { name: 'shop', namespace: 'default' }, spec: { message: 'hi' } });
      const status = (): WebAppStatus | undefined => server.get(WEBAPP.gvr, 'default', 'shop')?.['status'] as WebAppStatus | undefined;
      await waitFor(() => status()?.configMapCount === 1, { timeoutMs: 10_000 });
      const readyz = await fetch(`${metricsUrl}/readyz`);
      c.stop.abort(new Error('test stop'));

      expect(await exit).toBe(0);
      expect(readyz.status).toBe(200);
      expect(
        server.list({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' }).map((o) => o.metadata.name),
      ).toEqual(['webapps.demo.protean.dev', 'websites.demo.protean.dev']);
      expect(c.out.at(-1)).toMatch(/controller stopped$/);
      expect(c.out.filter((l) => / status page: http:\/\/127\.0\.0\.1:\d+\/statusz$/.test(l))).toHaveLength(1);
      // Controller logs are pino JSON, one child logger per component.
      const components = new Set(c.logs.map((l) => (JSON.parse(l) as { component?: string }).component));
      expect(components).toContain('dynamic-controller');
    }, 60_000);

    it('exits 1 with the reason when the kubeconfig cannot be read', async () => {
      const c = capture();
      expect(await runCli(['--kubeconfig', join(dir, 'missing')], c.io)).toBe(1);
      expect(c.err).toHaveLength(1);
      expect(c.err[0]).toMatch(/^error: cannot load kubeconfig: .*missing: cannot read the KubeConfig: ENOENT/);
    });
  });
});
