import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import type { ConformanceTarget } from './ConformanceTarget.js';

/**
 * The in-memory API server as a conformance target. Namespaces must exist,
 * as on a real cluster (`requireNamespaces`).
 */
export const inMemoryTarget: ConformanceTarget = {
  name: 'in-memory',
  async start(opts = {}) {
    const server = await InMemoryApiServer.start({ requireNamespaces: true, watchList: opts.watchList === false ? 'disabled' : 'enabled' });
    return {
      kubeConfig: server.kubeConfig(),
      stop: () => server.stop(),
      forceExpire: () => {
        server.faults.expireAll();
        return Promise.resolve();
      },
    };
  },
};
