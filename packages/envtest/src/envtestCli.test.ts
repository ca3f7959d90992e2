import { chmodSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from '@jest/globals';
import { CliUsageError } from './CliUsageError.js';
import { parseCliArgs, runCli, USAGE, USAGE_EXIT_CODE } from './envtestCli.js';
import { kubeBuildScript } from './kubeBuildScript.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Runs the CLI with PROTEAN_KUBE_CACHE at a fresh temp dir; returns its output and status. */
async function cli(argv: string[], cache: string, buildScript?: string) {
  let stdout = '';
  let stderr = '';
  const env = { ...process.env, PROTEAN_KUBE_CACHE: cache };
  const status = await runCli(argv, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env,
    ...(buildScript === undefined ? {} : { buildScript }),
  });
  return { status, stdout, stderr };
}

function tempCache(): string {
  const d = mkdtempSync(join(tmpdir(), 'protean-envtest-cli-'));
  dirs.push(d);
  return d;
}

function usageError(argv: string[]): CliUsageError {
  try {
    parseCliArgs(argv);
  } catch (e) {
    if (e instanceof CliUsageError) return e;
    throw e;
  }
  throw new Error(`parseCliArgs(${JSON.stringify(argv)}) did not throw`);
}

describe('parseCliArgs', () => {
  it('reads build, build --print-dir and help', () => {
    expect(parseCliArgs(['build'])).toEqual({ kind: 'build', printDir: false });
    expect(parseCliArgs(['build', '--print-dir'])).toEqual({ kind: 'build', printDir: true });
    expect(parseCliArgs(['help'])).toEqual({ kind: 'help' });
    expect(parseCliArgs(['--help'])).toEqual({ kind: 'help' });
    expect(parseCliArgs(['build', '-h'])).toEqual({ kind: 'help' });
  });

  it('names the argument it does not understand', () => {
    const none = usageError([]);
    expect(none.name).toBe('CliUsageError');
    expect(none.message).toContain('no command given');
    expect(usageError(['biuld']).message).toBe("protean-envtest: unknown command 'biuld' (expected build or help)");
    expect(usageError(['biuld']).argument).toBe('biuld');
    expect(usageError(['build', '--force']).message).toContain("unexpected argument '--force'");
    expect(usageError(['build', '--print-dir', '--print-dir']).argument).toBe('--print-dir');
    expect(usageError(['help', 'build']).argument).toBe('build');
  });
});

describe('runCli', () => {
  it('prints the usage with status 0 for help and status 2 with the error for a bad command line', async () => {
    const cache = tempCache();
    await expect(cli(['help'], cache)).resolves.toEqual({ status: 0, stdout: USAGE, stderr: '' });
    const bad = await cli(['build', '--force'], cache);
    expect(bad.status).toBe(USAGE_EXIT_CODE);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain("unexpected argument '--force'");
    expect(bad.stderr).toContain('build --print-dir');
  });

  it('build --print-dir prints the cache directory without building: status 3 while empty, 0 once the binaries are there', async () => {
    const cache = tempCache();
    const before = await cli(['build', '--print-dir'], cache);
    expect(before.status).toBe(3);
    const dir = before.stdout.trim();
    expect(dir).toMatch(new RegExp(`^${cache}/[0-9a-f]{16}$`));
    expect(before.stderr).toContain('not built yet');

    mkdirSync(dir);
    for (const b of ['kube-apiserver', 'etcd', 'kube-controller-manager']) {
      writeFileSync(join(dir, b), '#!/bin/sh\n');
      chmodSync(join(dir, b), 0o755);
    }
    await expect(cli(['build', '--print-dir'], cache)).resolves.toEqual({ status: 0, stdout: `${dir}\n`, stderr: '' });
  });

  it('build reuses cached binaries: prints their directory and points the current link at it', async () => {
    const cache = tempCache();
    const dir = (await cli(['build', '--print-dir'], cache)).stdout.trim();
    mkdirSync(dir);
    for (const b of ['kube-apiserver', 'etcd', 'kube-controller-manager']) {
      writeFileSync(join(dir, b), '#!/bin/sh\n');
      chmodSync(join(dir, b), 0o755);
    }
    await expect(cli(['build'], cache)).resolves.toEqual({ status: 0, stdout: `${dir}\n`, stderr: '' });
    expect(readlinkSync(join(cache, 'current'))).toBe(dir.slice(cache.length + 1));
  });

  it("uses the same cache key as the repository's tools/kube-apiserver/build.sh", async () => {
    const cache = tempCache();
    const wrapper = fileURLToPath(new URL('../../../tools/kube-apiserver/build.sh', import.meta.url));
    const fromPackage = await cli(['build', '--print-dir'], cache);
    const fromWrapper = await cli(['build', '--print-dir'], cache, wrapper);
    expect(kubeBuildScript()).toMatch(/packages\/envtest\/kube\/build\.sh$/);
    expect(fromWrapper).toEqual(fromPackage);
  });

  it('passes the build script exit status and stderr through, and reports a script that cannot run', async () => {
    const cache = tempCache();
    const failing = join(cache, 'failing.sh');
    writeFileSync(failing, 'echo "go: not found" >&2\nexit 7\n');
    await expect(cli(['build'], cache, failing)).resolves.toEqual({ status: 7, stdout: '', stderr: 'go: not found\n' });
    const missing = await cli(['build'], cache, join(cache, 'nope.sh'));
    expect(missing.status).toBe(127);
    expect(missing.stderr).toContain('nope.sh');
  });
});
