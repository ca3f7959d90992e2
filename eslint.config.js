import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // bench/lib/*.bundle.mjs: the anchor and imports benchmarks' esbuild output (git ignores it too).
  { ignores: ['**/dist/**', '**/node_modules/**', '**/coverage/**', 'docs/api/**', 'tools/**/*.go', 'bench/lib/*.bundle.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        performance: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        setImmediate: 'readonly',
        queueMicrotask: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['**/*.test.ts', '**/*.int.test.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  // The packages whose time comes in through a Clock (ARCHITECTURE.md, "Time comes from an injected Clock"): a timer
  // or a clock read of their own would escape FakeClock in tests. The few deliberate exceptions say why, inline.
  {
    files: ['packages/{core,queue,watch-manager,coordinator,leader-election,sharding}/src/**/*.ts'],
    ignores: ['**/*.test.ts', '**/*.testkit.ts', '**/testing/**'],
    rules: {
      'no-restricted-globals': [
        'error',
        { name: 'setTimeout', message: 'Use the injected Clock (clock.setTimeout) so tests can drive it.' },
        { name: 'setInterval', message: 'Use the injected Clock (clock.setTimeout) so tests can drive it.' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Use the injected Clock (clock.now(), or a wallClock option).' },
        { object: 'performance', property: 'now', message: 'Use the injected Clock (clock.now()).' },
      ],
    },
  },
);
