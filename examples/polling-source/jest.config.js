import { jestConfig } from '../../jest.preset.js';

export default jestConfig({
  displayName: '@protean/example-polling-source',
  moduleNameMapper: {
    '^@protean/([a-z-]+)$': '<rootDir>/../../packages/$1/src/index.ts',
    '^@protean/([a-z-]+)/internal$': '<rootDir>/../../packages/$1/src/internal.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
});
