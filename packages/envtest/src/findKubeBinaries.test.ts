import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { findKubeBinaries, resolveKubeBinDir } from './findKubeBinaries.js';
import { KubeBinariesMissingError } from './KubeBinariesMissingError.js';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'protean-kubebin-test-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('findKubeBinaries', () => {
  it('throws KubeBinariesMissingError naming the directory, the missing binaries and the build command', () => {
    const dir = join(tempDir(), 'nothing-here');
    let error: unknown;
    try {
      findKubeBinaries(dir);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(KubeBinariesMissingError);
    const err = error as KubeBinariesMissingError;
    expect(err.name).toBe('KubeBinariesMissingError');
    expect(err.missing).toEqual(['kube-apiserver', 'etcd']);
    expect(err.message).toContain(`kube-apiserver and etcd missing or not executable in ${dir} (from the binDir option)`);
    expect(err.message).toContain('Build them once with `npx protean-envtest build`');
    expect(err.message).toContain('about 4-5 minutes');
    expect(err.message).toContain('PROTEAN_KUBE_BIN_DIR=$(npx protean-envtest build | tail -1)');
    expect(err.message).not.toContain('from the repository root');
  });

  it('reports a binary that exists but is not executable as missing', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'kube-apiserver'), '#!/bin/sh\n');
    chmodSync(join(dir, 'kube-apiserver'), 0o755);
    writeFileSync(join(dir, 'etcd'), '');
    chmodSync(join(dir, 'etcd'), 0o644);
    expect(() => findKubeBinaries(dir)).toThrow(/etcd missing or not executable/);
  });

  it('returns both paths when both are executable', () => {
    const dir = tempDir();
    for (const b of ['kube-apiserver', 'etcd']) {
      writeFileSync(join(dir, b), '#!/bin/sh\n');
      chmodSync(join(dir, b), 0o755);
    }
    expect(findKubeBinaries(dir)).toEqual({ kubeApiServer: join(dir, 'kube-apiserver'), etcd: join(dir, 'etcd') });
  });
});

describe('resolveKubeBinDir', () => {
  it('prefers the argument, then PROTEAN_KUBE_BIN_DIR, then the build cache link', () => {
    const env = { PROTEAN_KUBE_BIN_DIR: '/env/bin' };
    expect(resolveKubeBinDir('/arg', env, '/home/u').dir).toBe('/arg');
    expect(resolveKubeBinDir(undefined, env, '/home/u')).toEqual({ dir: '/env/bin', source: 'from PROTEAN_KUBE_BIN_DIR' });
    expect(resolveKubeBinDir(undefined, {}, '/home/u').dir).toBe('/home/u/.cache/protean/kube-apiserver/current');
  });

  it('follows build.sh for the cache root: PROTEAN_KUBE_CACHE, else XDG_CACHE_HOME', () => {
    expect(resolveKubeBinDir(undefined, { XDG_CACHE_HOME: '/xdg' }, '/home/u').dir).toBe('/xdg/protean/kube-apiserver/current');
    expect(resolveKubeBinDir(undefined, { PROTEAN_KUBE_CACHE: '/c', XDG_CACHE_HOME: '/xdg' }, '/home/u').dir).toBe('/c/current');
    expect(resolveKubeBinDir(undefined, { PROTEAN_KUBE_BIN_DIR: '' }, '/home/u').source).toContain('PROTEAN_KUBE_BIN_DIR is not set');
  });
});
