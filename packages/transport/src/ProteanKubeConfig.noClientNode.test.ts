// Loading @protean/transport and using ProteanKubeConfig must not load @kubernetes/client-node (its generated API
// costs about 80 MiB of RSS). A child process records every module Node loads, through a module load hook.
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dist = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const packageDir = fileURLToPath(new URL('..', import.meta.url));

/** A module-load hook, for `module.register` (Node.js 20.6+; `registerHooks` is 22.15+): appends every URL loaded to a file. */
const HOOKS = `import { appendFileSync } from 'node:fs';
let out;
export function initialize(data) { out = data.out; }
export async function load(url, context, next) { appendFileSync(out, url + '\\n'); return next(url, context); }
`;

/** The URLs of every module a fresh Node process loaded while running `code` (which may use `t`, this package's build). */
function loadedBy(code: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'protean-loads-'));
  try {
    const out = join(dir, 'loaded.txt');
    const hooks = join(dir, 'hooks.mjs');
    writeFileSync(hooks, HOOKS);
    writeFileSync(out, '');
    const script = `
import { register } from 'node:module';
register(${JSON.stringify(pathToFileURL(hooks).href)}, { data: { out: ${JSON.stringify(out)} } });
const t = await import(${JSON.stringify(dist)});
${code}
// Modules loaded by require() (a CommonJS module, or one required lazily) are in its cache.
const { createRequire } = await import('node:module');
const { appendFileSync } = await import('node:fs');
for (const file of Object.keys(createRequire(import.meta.url).cache)) appendFileSync(${JSON.stringify(out)}, file + '\\n');`;
    // From this package's directory, where a bare `@kubernetes/client-node` resolves (its dev dependency).
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: packageDir });
    return readFileSync(out, 'utf8')
      .split('\n')
      .filter((line) => line !== '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const clientNode = (urls: readonly string[]): string[] => urls.filter((u) => u.includes('/@kubernetes/client-node/'));

describe('@protean/transport without @kubernetes/client-node', () => {
  it('is built (these checks run on dist/)', () => {
    expect(existsSync(dist)).toBe(true);
  });

  it('loads no module of @kubernetes/client-node when ProteanKubeConfig loads a KubeConfig and a request is prepared', () => {
    const urls = loadedBy(`
const kc = new t.ProteanKubeConfig();
kc.loadFromString('clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\\nusers: [{name: u, user: {token: t}}]\\ncontexts: [{name: x, context: {cluster: c, user: u}}]\\ncurrent-context: x');
await kc.applyToHTTPSOptions({ headers: {} });
t.sharedConnectionPool(kc);`);
    expect(urls.some((u) => u.endsWith('/ProteanKubeConfig.js'))).toBe(true);
    expect(clientNode(urls)).toEqual([]);
  });

  it('sees @kubernetes/client-node when it is imported (the hook does record it)', () => {
    expect(clientNode(loadedBy(`await import('@kubernetes/client-node');`)).length).toBeGreaterThan(0);
  });
});

const jsYaml = (urls: readonly string[]): string[] => urls.filter((u) => u.includes('/js-yaml/'));
const JSON_KUBECONFIG = JSON.stringify({
  clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1' } }],
  users: [{ name: 'u', user: { token: 't' } }],
  contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
  'current-context': 'x',
});

describe('@protean/transport loads its YAML parser only for a YAML KubeConfig', () => {
  it('loads no module of js-yaml for a JSON KubeConfig (as for in-cluster config, which is no file)', () => {
    const urls = loadedBy(`
const kc = new t.ProteanKubeConfig();
kc.loadFromString(${JSON.stringify(JSON_KUBECONFIG)});
await kc.applyToHTTPSOptions({ headers: {} });`);
    expect(urls.some((u) => u.endsWith('/ProteanKubeConfig.js'))).toBe(true);
    expect(jsYaml(urls)).toEqual([]);
  });

  it('loads js-yaml for a YAML KubeConfig, and reads it', () => {
    const urls = loadedBy(`
const kc = new t.ProteanKubeConfig();
kc.loadFromString('clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\\ncurrent-context: ""');
if (kc.getClusters()[0]?.server !== 'https://127.0.0.1:1') throw new Error('not read');`);
    expect(jsYaml(urls).length).toBeGreaterThan(0);
  });
});
