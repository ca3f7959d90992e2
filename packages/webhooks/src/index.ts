export {
  type AdmissionWebhook,
  AdmissionRegistrar,
  type AdmissionRegistrarOptions,
  AdmissionRegistrationError,
  type WebhookClientConfig,
  type WebhookConfiguration,
} from './AdmissionRegistrar.js';
export {
  AdmissionConfigError,
  type AdmissionOptions,
  AdmittingController,
  type AdmittingControllerOptions,
  type AdmittingRegisterOptions,
  type RegisteringController,
} from './AdmittingController.js';
export {
  type CertificateAuthorityOptions,
  type CertificateKeyPair,
  CertificateRequestError,
  createCertificateAuthority,
  createServingCertificate,
  type ServingCertificateOptions,
} from './certificates.js';
export {
  type CertificateListener,
  type CertificateSource,
  type ConversionCaBundleOptions,
  keepConversionCaBundle,
  SelfManagedCertificates,
  type SelfManagedCertificatesOptions,
  type WebhookCertificates,
} from './SelfManagedCertificates.js';
export type {
  AdmissionRequest,
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
  type ReviewOutcome,
  type ReviewRecord,
  type ReviewReply,
  ReviewTooLargeError,
  type RouteCounts,
  type ServingCertificate,
  type ValidatingHandler,
  WebhookServer,
  type WebhookServerOptions,
  type WebhookServerStatus,
} from './WebhookServer.js';
