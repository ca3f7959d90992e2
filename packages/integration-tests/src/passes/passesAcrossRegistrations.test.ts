import { afterEach, describe, it } from '@jest/globals';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { cutOffAcrossRegistrations } from './cutOffAcrossRegistrations.js';

describe('passes cut off by deregister, on the in-memory API server', () => {
  let server: InMemoryApiServer | undefined;

  afterEach(async () => {
    await server?.stop();
  });

  it('cuts off 25 passes by deregistering; a fresh registration still retries its first failure', async () => {
    server = await InMemoryApiServer.start();
    await cutOffAcrossRegistrations(server.kubeConfig(), 'default', 'cut-off');
  });
});
