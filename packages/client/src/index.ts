export { AlreadyOwnedError } from './AlreadyOwnedError.js';
export { ApplyConflictError } from './ApplyConflictError.js';
export { applyOwned } from './applyOwned.js';
export { type Condition, findStatusCondition, isStatusConditionTrue, removeStatusCondition, setStatusCondition } from './conditions.js';
export { isAlreadyExists, isConflict } from './errorPredicates.js';
export { EventRecorder, type EventRecorderOptions, EVENTS } from './EventRecorder.js';
export { addFinalizer, hasFinalizer, isBeingDeleted, removeFinalizer } from './finalizers.js';
export { InvalidOwnerError } from './InvalidOwnerError.js';
export { KubeApiError } from './KubeApiError.js';
export { KubeClient } from './KubeClient.js';
export { KubeConfigTransport } from './KubeConfigTransport.js';
export { KubeTransportError } from './KubeTransportError.js';
export { KubeClientClosedError } from './KubeClientClosedError.js';
export { MissingNamespaceError } from './MissingNamespaceError.js';
export { reconcileFinalizer, type ReconcileFinalizerOptions } from './reconcileFinalizer.js';
export { type RetryOptions } from './RetryOptions.js';
export { controllerOf, isControlledBy, setControllerReference, setOwnerReference } from './setControllerReference.js';
export type {
  ApplyOptions,
  DeleteOptions,
  KubeClientOptions,
  ListOptions,
  PatchOptions,
  RequestOptions,
  SubresourceOptions,
  WriteOptions,
} from './KubeClientOptions.js';
export type { KubeObject, ObjectKey, Stored } from './KubeObject.js';
