// Shared Jest configuration: native ESM, TypeScript compiled by SWC (legacy
// decorators + metadata for Inversify). SWC does not type-check; `tsc -b`
// in the root test command does. Workspace packages resolve to their
// TypeScript sources, so a package's tests never need another package built.
export function jestConfig(overrides = {}) {
  return {
    testEnvironment: 'node',
    extensionsToTreatAsEsm: ['.ts'],
    moduleNameMapper: {
      '^@protean/([a-z-]+)$': '<rootDir>/../$1/src/index.ts',
      '^@protean/([a-z-]+)/testing$': '<rootDir>/../$1/src/testing/index.ts',
      '^@protean/([a-z-]+)/internal$': '<rootDir>/../$1/src/internal.ts',
      '^(\\.{1,2}/.*)\\.js$': '$1',
    },
    transform: {
      '^.+\\.ts$': [
        '@swc/jest',
        {
          jsc: {
            parser: { syntax: 'typescript', decorators: true },
            transform: { legacyDecorator: true, decoratorMetadata: true },
            target: 'es2022',
          },
          module: { type: 'es6' },
        },
      ],
    },
    testMatch: ['<rootDir>/src/**/*.test.ts'],
    // Real-cluster tests (*.real.test.ts) run in their own tier: see jestRealConfig.
    testPathIgnorePatterns: ['/node_modules/', '\\.real\\.test\\.ts$'],
    testTimeout: 20000,
    ...overrides,
  };
}

/**
 * The real-cluster tier: only `*.real.test.ts`, one file at a time (each
 * starts its own kube-apiserver + etcd; run them with `--runInBand`), with timeouts sized for them.
 */
export function jestRealConfig(overrides = {}) {
  return jestConfig({
    testMatch: ['<rootDir>/src/**/*.real.test.ts'],
    testPathIgnorePatterns: ['/node_modules/'],
    testTimeout: 120000,
    ...overrides,
  });
}
