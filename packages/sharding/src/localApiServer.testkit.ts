import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { sharedConnectionPool } from '@protean/transport';

const open: { server: Server; kubeConfig: KubeConfig }[] = [];

/** A local HTTP server standing in for the API server, answering every request with `handle`; its KubeConfig (token auth). */
export async function localApiServer(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<KubeConfig> {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'c', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  open.push({ server, kubeConfig });
  return kubeConfig;
}

/** Closes every server {@link localApiServer} started, and the connections to it (for `afterEach`). */
export async function closeLocalApiServers(): Promise<void> {
  for (const { server, kubeConfig } of open.splice(0)) {
    sharedConnectionPool(kubeConfig).close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
