export * from '@protean/core/testing';
export * from './createTestController.js';
