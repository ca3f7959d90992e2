// Jest on native ES modules, TypeScript compiled by SWC (as @protean/testing's README sets it up).
export default {
  testEnvironment: 'node',
  // Only the sources (dist/ holds the bundled main, no tests).
  roots: ['<rootDir>/src'],
  extensionsToTreatAsEsm: ['.ts'],
  // Inversify reads constructor metadata through it; loaded before each test file.
  setupFiles: ['reflect-metadata'],
  // NodeNext sources import './x.js'; resolve that to './x.ts'.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
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
  testTimeout: 20_000,
};
