import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { findKubeBinaries } from './findKubeBinaries.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function binDir(names: readonly string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'protean-kubebin-kcm-'));
  dirs.push(dir);
  for (const name of names) {
    writeFileSync(join(dir, name), '#!/bin/sh\n');
    chmodSync(join(dir, name), 0o755);
  }
  return dir;
}

describe('findKubeBinaries and kube-controller-manager', () => {
  it('reports kube-controller-manager when the directory has it', () => {
    const dir = binDir(['kube-apiserver', 'etcd', 'kube-controller-manager']);
    expect(findKubeBinaries(dir)).toEqual({
      kubeApiServer: join(dir, 'kube-apiserver'),
      etcd: join(dir, 'etcd'),
      kubeControllerManager: join(dir, 'kube-controller-manager'),
    });
  });

  it('does not require it: only the controllers option needs it', () => {
    const dir = binDir(['kube-apiserver', 'etcd']);
    expect(findKubeBinaries(dir)).toEqual({ kubeApiServer: join(dir, 'kube-apiserver'), etcd: join(dir, 'etcd') });
  });
});
