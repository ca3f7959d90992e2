import { afterEach, describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { LogSummarizer } from '@protean/core';
import { FakeClock, LogRecorder, waitFor } from '@protean/core/testing';
import { KubernetesInformerSource, runInformer, type Informer } from '@protean/watch-manager';
import { createServer } from 'node:net';

async function closedPortUrl(): Promise<string> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return `https://127.0.0.1:${port}`;
}

const abort = new AbortController();
afterEach(() => abort.abort());

describe('informer logs while the API server is unreachable', () => {
  it('are one warn line for 20 informers refused at once, then one counted summary line, none with a stack', async () => {
    const server = await closedPortUrl();
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [{ name: 'c', server }],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const log = new LogRecorder('info');
    const summaryClock = new FakeClock();
    const source = new KubernetesInformerSource({
      kubeConfig,
      logger: log.logger,
      logSummarizer: new LogSummarizer({ logger: log.logger.child({ component: 'informer' }), clock: summaryClock, intervalMs: 5000 }),
    });
    const informers: Informer[] = [];
    for (let i = 0; i < 20; i++) {
      informers.push(runInformer(source.createListWatch({ group: 'example.com', version: 'v1', resource: `kinds${i}` }), {}, abort.signal));
    }
    await waitFor(() => informers.every((i) => i.health().failing !== undefined), { timeoutMs: 10_000, message: 'every informer failing' });
    const warns = (): typeof log.records => log.records.filter((r) => r.level >= 40);
    expect(warns()).toHaveLength(1);
    expect(warns()[0]).toMatchObject({ msg: 'list/watch failing (ECONNREFUSED); retrying with backoff', code: 'ECONNREFUSED', server });
    await summaryClock.advanceAsync(5000);
    expect(warns()).toHaveLength(2);
    expect(warns()[1]).toMatchObject({
      msg: `ECONNREFUSED ${server}: 19 more like this from 19 source(s) in the last 5000 ms`,
      code: 'ECONNREFUSED',
      server,
      repeats: 19,
      sources: 19,
    });
    expect(JSON.stringify(log.records)).not.toContain('"stack"');
  });
});
