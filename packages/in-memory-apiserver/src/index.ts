// First, before anything here loads @kubernetes/client-node: @protean/transport checks, as it loads, that the
// installed client-node runs on this Node.js, and throws ClientNodeRuntimeError naming the fix (client-node 2.x
// on Node.js < 22.19 would otherwise fail inside undici with a bare TypeError).
import '@protean/transport';
export { ApiError, type StatusDetails, type StatusObject } from './ApiError.js';
export { CRD_GVR } from './crd.js';
export { InMemoryApiServer } from './InMemoryApiServer.js';
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
