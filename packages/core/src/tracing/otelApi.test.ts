import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MODULE = fileURLToPath(new URL('./otelApi.ts', import.meta.url));
/** This package's directory: the child resolves the OpenTelemetry packages from it, wherever the tests were started. */
const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Runs `steps` (an ES module body) in a fresh Node process (in this package's directory), after `otelApi`
 * is imported from this package's source and `apiLoaded()` tells whether
 * any module of `@opentelemetry/api` is in the CommonJS cache (the API is
 * CommonJS under Node's conditions, imported or required); returns what
 * the body assigned to `out`.
 */
function inFreshProcess(steps: string): unknown {
  const script = `
    const { otelApi } = await import(${JSON.stringify(MODULE)});
    const { createRequire } = await import('node:module');
    const cache = createRequire(${JSON.stringify(MODULE)}).cache;
    const apiLoaded = () => Object.keys(cache).some((file) => file.includes('/@opentelemetry/api/'));
    let out;
    ${steps}
    process.stdout.write(JSON.stringify(out));
  `;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: PACKAGE_DIR }));
}

describe('otelApi', () => {
  it('does not load @opentelemetry/api, installed, while nothing registered with it', () => {
    expect(inFreshProcess(`out = [otelApi() === undefined, otelApi() === undefined, apiLoaded()];`)).toEqual([true, true, false]);
  });

  it('loads it at the first call after a tracer provider is registered through any copy, and sees that provider', () => {
    const out = inFreshProcess(`
      const before = otelApi();
      const { BasicTracerProvider } = await import('@opentelemetry/sdk-trace-base');
      const { trace } = await import('@opentelemetry/api');
      const provider = new BasicTracerProvider();
      trace.setGlobalTracerProvider(provider);
      const api = otelApi();
      out = { before: before === undefined, after: api !== undefined, same: api?.trace.getTracerProvider().getDelegate() === provider };
    `);
    expect(out).toEqual({ before: true, after: true, same: true });
  });

  it('loads it once a registry is on globalThis, even if everything registered was disabled again', () => {
    const out = inFreshProcess(`
      const { context } = await import('@opentelemetry/api');
      context.setGlobalContextManager({ active: () => undefined, with: (c, fn) => fn(), bind: (c, t) => t, enable() { return this; }, disable() { return this; } });
      context.disable();
      out = otelApi() !== undefined;
    `);
    expect(out).toBe(true);
  });
});
