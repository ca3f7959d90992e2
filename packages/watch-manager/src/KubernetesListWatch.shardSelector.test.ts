import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { waitFor } from '@protean/core/testing';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { KubeTestInformer } from './kubeInformer.testkit.js';
import { KubernetesListWatch } from './KubernetesListWatch.js';
import type { StreamingListMode } from './KubernetesInformerOptions.js';

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };
const SELECTOR = "shardRange(object.metadata.namespace, '0x0000000000000000', '0x8000000000000000')";

let server: InMemoryApiServer;
const stops: AbortController[] = [];

beforeEach(async () => {
  server = await InMemoryApiServer.start();
});

afterEach(async () => {
  for (const s of stops.splice(0)) s.abort();
  await server.stop();
});

async function requestsOf(streamingList: StreamingListMode, shardSelector: string | undefined): Promise<URLSearchParams[]> {
  const informer = new KubeTestInformer(
    new KubernetesListWatch(CONFIGMAPS, {
      kubeConfig: server.kubeConfig(),
      streamingList,
      ...(shardSelector === undefined ? {} : { shardSelector }),
    }),
  );
  const stop = new AbortController();
  stops.push(stop);
  informer.run(stop.signal);
  await waitFor(() => informer.hasSynced() && server.openWatchCount() === 1, { message: 'sync and an open watch' });
  return server
    .requests()
    .filter((r) => r.path === '/api/v1/configmaps')
    .map((r) => r.query);
}

describe('KubernetesListWatch shardSelector', () => {
  it.each<StreamingListMode>(['never', 'always'])('sends it on every list and watch (streamingList %s)', async (mode) => {
    const queries = await requestsOf(mode, SELECTOR);
    expect(queries.length).toBeGreaterThan(0);
    for (const q of queries) expect(q.get('shardSelector')).toBe(SELECTOR);
  });

  it('sends none when unset or empty', async () => {
    for (const q of await requestsOf('never', '')) expect(q.has('shardSelector')).toBe(false);
  });
});
