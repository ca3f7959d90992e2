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
export {
  serviceAccountKubeConfig,
  serviceAccountUser,
  writeKubeConfigFile,
  type ServiceAccountKubeConfigOptions,
} from './serviceAccountKubeConfig.js';
export { ServiceAccountNotFoundError } from './ServiceAccountNotFoundError.js';
export { TokenRequestError } from './TokenRequestError.js';
