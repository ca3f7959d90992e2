// Test-only re-exports, so tests import the selector API from one place.
export { Everything, Nothing, parseSelector, selectorFromLabelSelector } from '@protean/core';
