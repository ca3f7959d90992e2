// The generated project's build.mjs: a bundle that imports node's own modules the ways programs do gets each of them
// whole, without node building their ES namespaces (which would load fs/promises and readline for `node:fs`).
import { afterAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type BuildOptions } from 'esbuild';
import { TEMPLATES_DIR } from './generateProject.js';

const dir = mkdtempSync(join(tmpdir(), 'create-protean-build-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ENTRY = `
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import os from 'node:os';
import { format } from 'util';
import { setImmediate as tick } from 'node:timers/promises';
export { hostname } from 'node:os';
const { StringDecoder } = await import('node:string_decoder');
const loaded = new Set(process.moduleLoadList);
console.log(JSON.stringify({
  read: readFileSync(new URL(import.meta.url), 'utf8').length > 0,
  joined: path.join('a', 'b'),
  osDefault: typeof os.hostname,
  formatted: format('%s=%d', 'n', 1),
  decoded: new StringDecoder('utf8').write(Buffer.from('é')),
  ticked: await tick('t'),
  fsPromises: loaded.has('NativeModule internal/fs/promises'),
  readline: loaded.has('NativeModule internal/readline/interface'),
}));
`;

// A CommonJS dependency that requires assert and worker_threads as it loads, as pino, sonic-boom and thread-stream do.
const DEPENDENCY = `
const assert = require('assert');
const { isMainThread, Worker } = require('node:worker_threads');
module.exports = { assert, isMainThread, Worker };
`;
const LAZY_ENTRY = `
import { assert, isMainThread, Worker } from './dependency.cjs';
const loaded = (id) => process.moduleLoadList.includes('NativeModule ' + id);
const before = { assert: loaded('assert'), workerThreads: loaded('worker_threads'), stream: loaded('stream') };
if (!isMainThread) {
  console.log(JSON.stringify({ isMainThread, before }));
} else {
  assert(true);
  let failed;
  try {
    assert.strictEqual(1, 2, 'one is not two');
  } catch (err) {
    failed = { message: err.message.split('\\n')[0], assertionError: err instanceof assert.AssertionError };
  }
  const worker = new Worker('require("node:worker_threads").parentPort.postMessage(6 * 7)', { eval: true });
  const answer = await new Promise((resolve, reject) => worker.once('message', resolve).once('error', reject));
  // A CommonJS module that re-exports the stand-in, imported by name: its keys are the module's.
  const { strictEqual } = await import('./reexport.cjs');
  const reflected = { keys: Object.keys(assert).includes('strictEqual'), reexported: typeof strictEqual };
  console.log(JSON.stringify({ isMainThread, before, failed, answer, isWorker: worker instanceof Worker, reflected }));
}
`;

async function bundle(plugins: 'template' | 'none', source = ENTRY): Promise<string> {
  const { options } = (await import(pathToFileURL(join(TEMPLATES_DIR, 'build.mjs')).href)) as { options: BuildOptions };
  const entry = join(dir, 'entry.mjs');
  writeFileSync(entry, source);
  writeFileSync(join(dir, 'dependency.cjs'), DEPENDENCY);
  writeFileSync(join(dir, 'reexport.cjs'), "module.exports = require('assert');");
  const outfile = join(dir, `${plugins}-${source === ENTRY ? 'entry' : 'lazy'}.mjs`);
  await build({ ...options, entryPoints: [entry], outfile, sourcemap: false, ...(plugins === 'none' ? { plugins: [] } : {}) });
  return outfile;
}

function run(file: string, args: string[] = [file]): unknown {
  const result = spawnSync(process.execPath, args, { encoding: 'utf8' });
  expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
  return JSON.parse(result.stdout);
}

// A node without one of the modules the bundle imports, as an older node than the build's would be.
const WITHOUT_TIMERS_PROMISES =
  'data:text/javascript,const get = process.getBuiltinModule; process.getBuiltinModule = (id) => id === "node:timers/promises" ? undefined : get(id);';

describe("build.mjs's bundle", () => {
  it("takes node's modules as they are: named, namespace, default and dynamic imports work, fs/promises stays unloaded", async () => {
    const outfile = await bundle('template');
    expect(run(outfile)).toEqual({
      read: true,
      joined: join('a', 'b'),
      osDefault: 'function',
      formatted: 'n=1',
      decoded: 'é',
      ticked: 't',
      fsPromises: false,
      readline: false,
    });
    // No ES import of node's modules is left but the banner's (node:module, whose namespace reads no getter).
    const imports = [...readFileSync(outfile, 'utf8').matchAll(/^import\b[^'"]*['"]([^'"]+)['"]/gm)].map((m) => m[1]);
    expect(imports).toEqual(['node:module']);
  });

  it('fails at start, naming the module, on a node that lacks one it imports (as the ES import would)', async () => {
    const result = spawnSync(process.execPath, ['--import', WITHOUT_TIMERS_PROMISES, await bundle('template')], { encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('No such built-in module: node:timers/promises');
    expect(result.stderr).toContain("code: 'ERR_UNKNOWN_BUILTIN_MODULE'");
  });

  it('without its plugin, the same entry loads fs/promises and readline (what the plugin spares)', async () => {
    expect(run(await bundle('none'))).toMatchObject({ fsPromises: true, readline: true });
  });

  it('loads assert and worker_threads, required by a dependency as it loads, only when they are used', async () => {
    expect(run(await bundle('template', LAZY_ENTRY))).toEqual({
      isMainThread: true,
      before: { assert: false, workerThreads: false, stream: false },
      failed: { message: 'one is not two', assertionError: true },
      answer: 42,
      isWorker: true,
      reflected: { keys: true, reexported: 'function' },
    });
  });

  it('answers isMainThread truly in a worker thread', async () => {
    const outfile = await bundle('template', LAZY_ENTRY);
    const inWorker = `new (require('node:worker_threads').Worker)(${JSON.stringify(outfile)})`;
    expect(run(outfile, ['-e', inWorker])).toMatchObject({ isMainThread: false });
  });

  it('without its plugin, the dependency loads both as it loads', async () => {
    expect(run(await bundle('none', LAZY_ENTRY))).toMatchObject({ before: { assert: true, workerThreads: true } });
  });
});
