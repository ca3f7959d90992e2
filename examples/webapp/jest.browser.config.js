import base from './jest.config.js';

/**
 * The browser tier: `*.browser.test.ts` drive the status page in a real
 * headless Chromium (found on PATH or through PROTEAN_CHROMIUM; the root
 * test command installs Debian's package when it can). One file at a time.
 */
export default {
  ...base,
  displayName: '@protean/example-webapp (browser)',
  testMatch: ['<rootDir>/src/**/*.browser.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: 120000,
};
