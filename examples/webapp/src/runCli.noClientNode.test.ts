// The controller against a cluster (`--kubeconfig`) reads its config with ProteanKubeConfig and writes through
// @protean/client: loading the CLI must not load @kubernetes/client-node (only the demos do, when they run).
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const runCli = fileURLToPath(new URL('../dist/runCli.js', import.meta.url));

/** The URLs a fresh Node process loads when it imports `module` (this package's build). */
function loadedBy(module: string): string[] {
  const script = `
import { registerHooks } from 'node:module';
const loaded = [];
registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
await import(${JSON.stringify(module)});
process.stdout.write(JSON.stringify(loaded));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as string[];
}

describe('the webapp CLI without @kubernetes/client-node', () => {
  it('loads no module of @kubernetes/client-node until a demo runs', () => {
    const urls = loadedBy(runCli);
    expect(urls.some((u) => u.endsWith('/dist/ensureCrd.js'))).toBe(true);
    expect(urls.filter((u) => u.includes('/@kubernetes/client-node/'))).toEqual([]);
  });

  it('does load it with the demo (the hook sees it)', () => {
    expect(
      loadedBy(fileURLToPath(new URL('../dist/runDemo.js', import.meta.url))).some((u) => u.includes('/@kubernetes/client-node/')),
    ).toBe(true);
  });
});
