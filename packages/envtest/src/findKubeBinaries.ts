import { accessSync, constants } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { KubeBinariesMissingError } from './KubeBinariesMissingError.js';

/** Paths of the binaries a real test cluster needs. */
export interface KubeBinaries {
  kubeApiServer: string;
  etcd: string;
  /** `kube-controller-manager`, when the directory has it (needed only with `controllers`). */
  kubeControllerManager?: string;
}

/**
 * Where to look for the binaries and why: `binDir` if given, else
 * `PROTEAN_KUBE_BIN_DIR`, else the `current` link of the build cache
 * (`${PROTEAN_KUBE_CACHE:-${XDG_CACHE_HOME:-~/.cache}/protean/kube-apiserver}/current`,
 * the same root `kube/build.sh` of this package, i.e. `protean-envtest build`, uses).
 *
 * Easy to get wrong: `current` points at whatever was built last on this
 * machine, possibly by another checkout; CI should set `PROTEAN_KUBE_BIN_DIR`.
 */
export function resolveKubeBinDir(
  binDir: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  home: string = homedir(),
): { dir: string; source: string } {
  if (binDir !== undefined && binDir !== '') return { dir: binDir, source: 'from the binDir option' };
  const fromEnv = env['PROTEAN_KUBE_BIN_DIR'];
  if (fromEnv !== undefined && fromEnv !== '') return { dir: fromEnv, source: 'from PROTEAN_KUBE_BIN_DIR' };
  const cacheRoot =
    nonEmpty(env['PROTEAN_KUBE_CACHE']) ?? join(nonEmpty(env['XDG_CACHE_HOME']) ?? join(home, '.cache'), 'protean', 'kube-apiserver');
  return { dir: join(cacheRoot, 'current'), source: 'PROTEAN_KUBE_BIN_DIR is not set; tried the build cache default' };
}

function nonEmpty(s: string | undefined): string | undefined {
  return s === undefined || s === '' ? undefined : s;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Locates `kube-apiserver` and `etcd` built by `protean-envtest build`:
 * in `binDir`, else `$PROTEAN_KUBE_BIN_DIR`, else the build cache's `current`
 * link. Never builds anything.
 *
 * Easy to get wrong: it throws {@link KubeBinariesMissingError} (with build
 * instructions) rather than returning paths that do not exist.
 */
export function findKubeBinaries(binDir?: string): KubeBinaries {
  const { dir, source } = resolveKubeBinDir(binDir);
  const kubeApiServer = join(dir, 'kube-apiserver');
  const etcd = join(dir, 'etcd');
  const missing = [kubeApiServer, etcd].filter((p) => !isExecutable(p)).map((p) => (p === etcd ? 'etcd' : 'kube-apiserver'));
  if (missing.length > 0) throw new KubeBinariesMissingError(dir, missing, source);
  const kubeControllerManager = join(dir, 'kube-controller-manager');
  return isExecutable(kubeControllerManager) ? { kubeApiServer, etcd, kubeControllerManager } : { kubeApiServer, etcd };
}
