// The in-memory API server for the memory benchmark, in a worker thread so
// that its heap (which holds every full object) is not the heap we measure.
import { parentPort } from 'node:worker_threads';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };
const SECRETS = { group: '', version: 'v1', resource: 'secrets' };
const PAYLOAD = 'x'.repeat(1024);

const server = await InMemoryApiServer.start({ historyWindow: 100 });

function configMap(i) {
  return {
    metadata: {
      name: `bench-${String(i).padStart(6, '0')}`,
      namespace: `ns-${i % 10}`,
      labels: { app: 'bench', tier: i % 2 === 0 ? 'web' : 'api', shard: String(i % 16) },
      annotations: { 'bench.protean.dev/owner': `team-${i % 5}`, 'bench.protean.dev/note': 'created by the memory benchmark' },
    },
    data: { payload: PAYLOAD },
  };
}

parentPort.on('message', async (msg) => {
  if (msg.type === 'populate') {
    for (let i = msg.from; i < msg.to; i++) server.create(CONFIGMAPS, configMap(i));
    parentPort.postMessage({ type: 'populated', count: server.list(CONFIGMAPS).length });
  } else if (msg.type === 'warmup') {
    for (let i = 0; i < msg.count; i++) server.create(SECRETS, { ...configMap(i), data: undefined, stringData: undefined });
    parentPort.postMessage({ type: 'warmed' });
  } else if (msg.type === 'stop') {
    await server.stop();
    parentPort.close();
  }
});

parentPort.postMessage({ type: 'ready', kubeConfig: server.kubeConfig().exportConfig() });
