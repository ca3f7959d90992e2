// The in-memory API server for the memory benchmark, in a worker thread so
// that its heap (which holds every full object) is not the heap we measure.
import { parentPort } from 'node:worker_threads';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { configMap } from './memoryConfigMap.mjs';

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };
const SECRETS = { group: '', version: 'v1', resource: 'secrets' };
const server = await InMemoryApiServer.start({ historyWindow: 100 });

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
