// Every double of core, by design: a test imports one package.
export * from '@protean/core/testing';
export {
  createTestController,
  type TestController,
  testControllerConfig,
  type TestControllerOptions,
  testWaitForTimeoutMs,
} from './createTestController.js';
export {
  admissionReview,
  type AdmissionReviewInput,
  admit,
  type AdmissionOutcome,
  conversionReview,
  type ReviewTarget,
} from './admission.js';
export type { FailedPass } from './FailedPass.js';
export { PassTracker } from './PassTracker.js';
export { routesOf, type RoutesOfObject } from './routesOf.js';
