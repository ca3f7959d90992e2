export { ClientNodeRuntimeError } from './clientNodeRuntime.js';
export * from './KubeConnectionPool.js';
export * from './KubeTransportError.js';
export * from './requestOnNewConnection.js';
export * from './sharedConnectionPool.js';
export type { ApiServerConnectionStats } from './ApiServerConnection.js';
export type { KubeConnectionPoolOptions } from './KubeConnectionPoolOptions.js';
export type * from './KubeStreamResponse.js';
export type * from './KubeTransport.js';
