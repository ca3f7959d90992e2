import { jestRealConfig } from '../../jest.preset.js';

export default jestRealConfig({
  displayName: 'docs/guide (real kube-apiserver)',
  moduleNameMapper: {
    '^@protean/([a-z-]+)$': '<rootDir>/../../packages/$1/src/index.ts',
    '^@protean/([a-z-]+)/testing$': '<rootDir>/../../packages/$1/src/testing/index.ts',
    '^@protean/([a-z-]+)/internal$': '<rootDir>/../../packages/$1/src/internal.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
});
