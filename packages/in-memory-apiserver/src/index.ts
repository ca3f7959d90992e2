export { ApiError, type StatusDetails, type StatusObject } from './ApiError.js';
export { BUILTIN_RESOURCES } from './builtins.js';
export { CRD_GVR } from './crd.js';
export { DEFAULT_TEST_TOKEN, InMemoryApiServer } from './InMemoryApiServer.js';
export { ResourceDefinitionError } from './ServedResource.js';
export type {
  ApiServerFaults,
  FailNextOptions,
  InMemoryApiServerOptions,
  KubeObject,
  KubeObjectMeta,
  ManagedFieldsEntry,
  NewKubeObject,
  RequestRecord,
  RequestSummary,
  ResourceDefinition,
  WatchListMode,
} from './types.js';
