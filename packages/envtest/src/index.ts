// First, before anything here loads @kubernetes/client-node: @protean/transport checks, as it loads, that the
// installed client-node runs on this Node.js, and throws ClientNodeRuntimeError naming the fix (client-node 2.x
// on Node.js < 22.19 would otherwise fail inside undici with a bare TypeError).
import '@protean/transport';
export { findKubeBinaries, type KubeBinaries } from './findKubeBinaries.js';
export { KubeBinariesMissingError } from './KubeBinariesMissingError.js';
export type { KubeApiServer, KubeApiServerOptions } from './KubeApiServer.js';
export { KubeApiServerStartError } from './KubeApiServerStartError.js';
export { OpensslError } from './OpensslError.js';
export { startKubeApiServer } from './startKubeApiServer.js';
export {
  type Json,
  kubeRequest,
  type KubeRequestOptions,
  type KubeResponse,
  KubeWatch,
  waitUntil,
  type WatchEventLine,
} from './kubeHttp.js';
export { serviceAccountKubeConfig, writeKubeConfigFile, type ServiceAccountKubeConfigOptions } from './serviceAccountKubeConfig.js';
export { ServiceAccountNotFoundError } from './ServiceAccountNotFoundError.js';
export { TokenRequestError } from './TokenRequestError.js';
