export {
  type AdmissionWebhook,
  AdmissionRegistrar,
  type AdmissionRegistrarOptions,
  AdmissionRegistrationError,
  type WebhookClientConfig,
  type WebhookConfiguration,
} from './AdmissionRegistrar.js';
export { type JsonPatchOperation, jsonPatchBetween } from './jsonPatch.js';
export type {
  AdmissionRequest,
  AdmissionResponse,
  ConversionRequest,
  GroupVersionKind,
  GroupVersionResourceRef,
  MutationResult,
  ReviewObject,
  ReviewUser,
  ValidationResult,
} from './reviews.js';
export {
  type Converter,
  HandlerTimeoutError,
  MalformedReviewError,
  type MutatingHandler,
  ReviewTooLargeError,
  type ServingCertificate,
  type ValidatingHandler,
  WebhookServer,
  type WebhookServerOptions,
} from './WebhookServer.js';
