/**
 * Whether an object at resourceVersion `cached` is at least as new as one
 * at `written`. resourceVersions are opaque to clients, but
 * kube-apiserver's are etcd revisions, decimal integers that grow with
 * every write, so two of them compare as integers (compared here as
 * digit strings: length first, then the digits, without leading zeros).
 * A version that is not a decimal integer (another API server's) is
 * known to be reached only when it is equal.
 */
export function resourceVersionAtLeast(cached: string | undefined, written: string | undefined): boolean {
  if (written === undefined || written === '') return true;
  if (cached === undefined || cached === '') return false;
  if (cached === written) return true;
  if (!DECIMAL.test(cached) || !DECIMAL.test(written)) return false;
  return cached.length !== written.length ? cached.length > written.length : cached > written;
}

const DECIMAL = /^[1-9][0-9]*$/;
