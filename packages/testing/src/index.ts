export * from '@protean/core/testing';
export * from './createTestController.js';
export type * from './FailedPass.js';
export * from './routesOf.js';
