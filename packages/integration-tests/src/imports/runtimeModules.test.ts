// What a process loads when it uses Protean without a container and without @kubernetes/client-node:
// importing any runtime package must not load Inversify (loaded only when a container module is built)
// or client-node (accepted, never imported at run time), and neither must a controller built with
// DynamicController.create over ProteanKubeConfig, whose informer makes its first request. A child
// process records every module Node loads, through a module load hook. These checks run on the
// packages' builds (dist/), as a user's process would. The controller must also not load the fetch
// client Node bundles (undici), which an `import` of `node:http` loads along with the module.
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const packageDir = fileURLToPath(new URL('../..', import.meta.url));
const packagesDir = fileURLToPath(new URL('../../..', import.meta.url));

/** The packages a controller process imports at run time (not the test helpers, the API server fakes or the scaffolding). */
const RUNTIME_PACKAGES = [
  'core',
  'transport',
  'client',
  'watch-manager',
  'queue',
  'coordinator',
  'leader-election',
  'sharding',
  'metrics',
  'webhooks',
  'kinds',
] as const;

/** A module-load hook, for `module.register`: appends every URL loaded to a file. */
const HOOKS = `import { appendFileSync } from 'node:fs';
let out;
export function initialize(data) { out = data.out; }
export async function load(url, context, next) { appendFileSync(out, url + '\\n'); return next(url, context); }
`;

/** The URLs of every module a fresh Node process loaded while running `code` (an ES module body, from this package's directory). */
function loadedBy(code: string): string[] {
  return run(code).urls;
}

/** What {@link loadedBy} sees, and what the child wrote to stdout. */
function run(code: string): { urls: string[]; stdout: string } {
  const dir = mkdtempSync(join(tmpdir(), 'protean-runtime-loads-'));
  try {
    const out = join(dir, 'loaded.txt');
    const hooks = join(dir, 'hooks.mjs');
    writeFileSync(hooks, HOOKS);
    writeFileSync(out, '');
    const script = `
import { register } from 'node:module';
register(${JSON.stringify(pathToFileURL(hooks).href)}, { data: { out: ${JSON.stringify(out)} } });
${code}`;
    const stdout = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      cwd: packageDir,
      env: { ...process.env, LOG_LEVEL: 'silent' },
    });
    const urls = readFileSync(out, 'utf8')
      .split('\n')
      .filter((line) => line !== '');
    return { urls, stdout };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const inversify = (urls: readonly string[]): string[] => urls.filter((u) => /\/(inversify|@inversifyjs\/[^/]+)\//.test(u));
const clientNode = (urls: readonly string[]): string[] => urls.filter((u) => u.includes('/@kubernetes/client-node/'));

/** A controller over ProteanKubeConfig for a server nobody listens on; one parent registered, so its informer starts and sends its first LIST. */
const CONTROLLER = `
const { DynamicController } = await import('@protean/core');
const { ProteanKubeConfig } = await import('@protean/transport');
const { KubernetesInformerSource, InformerWatchManager } = await import('@protean/watch-manager');
const { createWorkQueueFactory } = await import('@protean/queue');
const { IndexedWatchCoordinator } = await import('@protean/coordinator');
const kc = new ProteanKubeConfig();
kc.loadFromString('clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\\nusers: [{name: u, user: {token: t}}]\\ncontexts: [{name: x, context: {cluster: c, user: u}}]\\ncurrent-context: x');
const controller = DynamicController.create({
  informerSource: new KubernetesInformerSource({ kubeConfig: kc }),
  workQueueFactory: createWorkQueueFactory(),
  watchManagerFactory: (d) => new InformerWatchManager(d.source, d.resyncPeriodMs, d.onEvent, d.logger),
  watchCoordinatorFactory: (d) => new IndexedWatchCoordinator(d.watchManager, d.enqueue, d.logger),
});
const abort = new AbortController();
const running = controller.start(abort.signal).catch(() => undefined);
controller.register({ group: '', version: 'v1', resource: 'configmaps' }, async () => undefined).catch(() => undefined);
// The first LIST opens a TLS connection (refused): wait for it, then for its failure to be handled.
while (!process.moduleLoadList.includes('NativeModule tls')) await new Promise((r) => setTimeout(r, 10));
await new Promise((r) => setTimeout(r, 200));
abort.abort();
await running;
const { createRequire } = await import('node:module');
process.stdout.write(JSON.stringify({ builtins: process.moduleLoadList, required: Object.keys(createRequire(process.cwd() + '/').cache) }));
process.exit(0);
`;

describe('runtime packages load neither Inversify nor @kubernetes/client-node (nor @opentelemetry/api unless an SDK registered)', () => {
  it('are built (these checks run on dist/)', () => {
    for (const name of RUNTIME_PACKAGES) expect([name, existsSync(join(packagesDir, name, 'dist', 'index.js'))]).toEqual([name, true]);
  });

  it.each(RUNTIME_PACKAGES)('importing @protean/%s loads no module of Inversify or client-node', (name) => {
    const urls = loadedBy(`await import('@protean/${name}');`);
    expect(urls.some((u) => u.includes(`/packages/${name}/dist/index.js`))).toBe(true);
    expect(inversify(urls)).toEqual([]);
    expect(clientNode(urls)).toEqual([]);
  });

  it('a controller built with DynamicController.create over ProteanKubeConfig loads neither, through its first request', () => {
    const { urls, stdout } = run(CONTROLLER);
    const { builtins, required } = JSON.parse(stdout) as { builtins: string[]; required: string[] };
    expect(builtins).toContain('NativeModule tls');
    expect(builtins).not.toContain('NativeModule internal/deps/undici/undici');
    expect(urls.some((u) => u.endsWith('/transport/dist/ApiServerConnection.js'))).toBe(true);
    expect(urls.some((u) => u.endsWith('/watch-manager/dist/KubernetesListWatch.js'))).toBe(true);
    expect(inversify(urls)).toEqual([]);
    expect(clientNode(urls)).toEqual([]);
    // Installed here (a dependency of the tests), but nothing registered a tracer provider: tracing stays off unloaded.
    expect([...urls, ...required].filter((u) => u.includes('/@opentelemetry/api/'))).toEqual([]);
  });

  it('builds a container module without Inversify; the hook sees Inversify once a container loads it, and client-node', () => {
    expect(inversify(loadedBy(`const { coreModule } = await import('@protean/core'); coreModule();`))).toEqual([]);
    const urls = loadedBy(
      `await import('reflect-metadata'); const { Container } = await import('inversify'); const { coreModule } = await import('@protean/core'); new Container().load(coreModule());`,
    );
    expect(inversify(urls).length).toBeGreaterThan(0);
    expect(clientNode(loadedBy(`await import('@kubernetes/client-node');`)).length).toBeGreaterThan(0);
  });
});
