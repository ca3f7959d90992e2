export { AlreadyOwnedError } from './AlreadyOwnedError.js';
export { ApplyConflictError, type FieldConflict } from './ApplyConflictError.js';
export { applyOwned, type ApplyOwnedOptions } from './applyOwned.js';
export {
  type Condition,
  type ConditionInput,
  findStatusCondition,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
} from './conditions.js';
export { isAlreadyExists, isConflict } from './errorPredicates.js';
export { type EventInput, EventRecorder, type EventRecorderOptions, EVENTS } from './EventRecorder.js';
export { addFinalizer, hasFinalizer, isBeingDeleted, removeFinalizer } from './finalizers.js';
export { InvalidOwnerError } from './InvalidOwnerError.js';
export { KubeApiError, type RequestDescription, type StatusBody, type StatusCause } from './KubeApiError.js';
export { KubeClient } from './KubeClient.js';
export { KubeConfigTransport } from './KubeConfigTransport.js';
export { KubeTransportError } from './KubeTransportError.js';
export { KubeClientClosedError } from './KubeClientClosedError.js';
export { MissingNamespaceError } from './MissingNamespaceError.js';
export { type FinalizerStep, reconcileFinalizer, type ReconcileFinalizerOptions } from './reconcileFinalizer.js';
export { type RetryOptions } from './RetryOptions.js';
export {
  controllerOf,
  type ControllerReferenceOptions,
  isControlledBy,
  type OwnerReferenceOptions,
  setControllerReference,
  setOwnerReference,
} from './setControllerReference.js';
export type {
  ApplyOptions,
  DeleteOptions,
  KubeClientOptions,
  ListOptions,
  Mutation,
  PatchOptions,
  RequestOptions,
  SubresourceOptions,
  WriteOptions,
} from './KubeClientOptions.js';
export type { KubeObject, ManagedFieldsEntry, ObjectKey, ObjectMetadata, Stored } from './KubeObject.js';
export type { KubeHttpRequest, KubeHttpResponse, KubeTransport } from './KubeTransport.js';
