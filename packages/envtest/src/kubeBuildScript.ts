import { fileURLToPath } from 'node:url';

/**
 * The absolute path of the kube build script shipped in this package
 * (`kube/build.sh` next to `dist/` and `src/`): it builds kube-apiserver,
 * etcd and kube-controller-manager from the Go module beside it, caches
 * them and prints their directory on its last stdout line.
 *
 * Easy to get wrong: the script's cache key is a hash of the Go files next
 * to it, so it must run from the package, never from a copy elsewhere.
 */
export function kubeBuildScript(): string {
  return fileURLToPath(new URL('../kube/build.sh', import.meta.url));
}
