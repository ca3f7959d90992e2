// The controller against a cluster (`--kubeconfig`) reads its config with ProteanKubeConfig and writes through
// @protean/client: loading the CLI must not load @kubernetes/client-node (only the demos do, when they run).
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const runCli = fileURLToPath(new URL('../dist/runCli.js', import.meta.url));

/** A module-load hook, for `module.register` (Node.js 20.6+; `registerHooks` is 22.15+): appends every URL loaded to a file. */
const HOOKS = `import { appendFileSync } from 'node:fs';
let out;
export function initialize(data) { out = data.out; }
export async function load(url, context, next) { appendFileSync(out, url + '\\n'); return next(url, context); }
`;

/** The URLs a fresh Node process loads when it imports `module` (this package's build). */
function loadedBy(module: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'protean-loads-'));
  try {
    const out = join(dir, 'loaded.txt');
    const hooks = join(dir, 'hooks.mjs');
    writeFileSync(hooks, HOOKS);
    writeFileSync(out, '');
    const script = `
import { register } from 'node:module';
register(${JSON.stringify(pathToFileURL(hooks).href)}, { data: { out: ${JSON.stringify(out)} } });
await import(${JSON.stringify(module)});`;
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    return readFileSync(out, 'utf8')
      .split('\n')
      .filter((line) => line !== '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
