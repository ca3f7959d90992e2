export * from '@protean/core/testing';
export * from './createTestController.js';
export * from './routesOf.js';
