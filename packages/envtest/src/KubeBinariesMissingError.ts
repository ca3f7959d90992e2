/**
 * Thrown by {@link findKubeBinaries} when `kube-apiserver` or `etcd` is not
 * an executable file in the directory it looked in. The message names the
 * directory, why it was chosen, what is missing and how to build them.
 *
 * Easy to get wrong: the fix is a one-off build (`npx protean-envtest build`,
 * the script shipped in this package; minutes the first time); catching this
 * to skip tests silently would hide a whole test tier.
 */
export class KubeBinariesMissingError extends Error {
  override readonly name = 'KubeBinariesMissingError';

  constructor(
    /** The directory that was searched. */
    readonly binDir: string,
    /** The binaries not found (or not executable) there. */
    readonly missing: readonly string[],
    /** Why `binDir` was searched: an argument, `PROTEAN_KUBE_BIN_DIR`, or the build cache default. */
    readonly source: string,
  ) {
    super(
      `kube-apiserver test binaries not found: ${missing.join(' and ')} missing or not executable in ${binDir} (${source}). ` +
        'Build them once with `npx protean-envtest build` (the build script shipped in @protean/envtest; ' +
        'in the Protean repository `bash tools/kube-apiserver/build.sh` runs the same script): ' +
        'a cold build takes about 4-5 minutes and needs bash, Go >= 1.26 and ~3 GB of Go caches; later runs take ~0.02 s. ' +
        "It points the build cache's `current` link at the binaries, where this lookup goes when PROTEAN_KUBE_BIN_DIR is unset; " +
        'otherwise export PROTEAN_KUBE_BIN_DIR=<the directory it prints on its last stdout line>, e.g. ' +
        'PROTEAN_KUBE_BIN_DIR=$(npx protean-envtest build | tail -1).',
    );
  }
}
