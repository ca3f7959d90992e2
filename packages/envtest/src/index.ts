export { findKubeBinaries, type KubeBinaries } from './findKubeBinaries.js';
export { KubeBinariesMissingError } from './KubeBinariesMissingError.js';
export type { KubeApiServer, KubeApiServerOptions } from './KubeApiServer.js';
export { KubeApiServerStartError } from './KubeApiServerStartError.js';
export { OpensslError } from './OpensslError.js';
export { startKubeApiServer } from './startKubeApiServer.js';
export * from './kubeHttp.js';
