import { jestConfig } from '../../jest.preset.js';

export default jestConfig({
  displayName: '@protean/example-webapp',
  moduleNameMapper: {
    '^@protean/([a-z-]+)$': '<rootDir>/../../packages/$1/src/index.ts',
    '^@protean/([a-z-]+)/internal$': '<rootDir>/../../packages/$1/src/internal.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  // The browser tier (*.browser.test.ts, a headless Chromium) runs in its own step: jest.browser.config.js.
  testPathIgnorePatterns: ['/node_modules/', '\\.real\\.test\\.ts$', '\\.browser\\.test\\.ts$'],
});
