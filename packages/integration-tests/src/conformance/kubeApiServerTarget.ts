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
    const extraArgs = opts.watchList === false ? ['--feature-gates=WatchList=false'] : [];
    const server = await startKubeApiServer({ watchCache: opts.watchCache ?? false, extraArgs });
    return {
      kubeConfig: server.kubeConfig,
      stop: () => server.stop(),
      forceExpire: async () => {
        await server.compact();
      },
    };
  },
};
