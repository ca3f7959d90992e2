export { AdmissionRegistrar, type AdmissionRegistrarOptions, AdmissionRegistrationError } from './AdmissionRegistrar.js';
export {
  AdmissionConfigError,
  type AdmissionOptions,
  AdmittingController,
  type AdmittingControllerOptions,
  type AdmittingRegisterOptions,
  type RegisteringController,
} from './AdmittingController.js';
export { CertificateRequestError, createCertificateAuthority, createServingCertificate } from './certificates.js';
export {
  type CertificateListener,
  type CertificateSource,
  keepConversionCaBundle,
  SelfManagedCertificates,
  type SelfManagedCertificatesOptions,
  type WebhookCertificates,
} from './SelfManagedCertificates.js';
export type { AdmissionRequest, MutationResult, ValidationResult } from './reviews.js';
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
