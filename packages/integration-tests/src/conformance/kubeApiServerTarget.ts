import { startKubeApiServer } from '@protean/envtest';
import type { ConformanceTarget } from './ConformanceTarget.js';

/**
 * A real kube-apiserver + etcd (see `startKubeApiServer`) as a conformance
 * target; the watch cache is off unless asked for, so compaction expires
 * watches at once.
 */
export const kubeApiServerTarget: ConformanceTarget = {
  name: 'kube-apiserver',
  async start(opts = {}) {
    const server = await startKubeApiServer({ watchCache: opts.watchCache ?? false });
    return {
      kubeConfig: server.kubeConfig,
      stop: () => server.stop(),
      forceExpire: async () => {
        await server.compact();
      },
    };
  },
};
