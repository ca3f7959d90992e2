/**
 * The HTTP status an error carries, whatever its shape: `status` (this
 * package's `KubernetesRequestError`), `statusCode` (Node HTTP errors) or a
 * numeric `code` (client-node's `ApiException`). Easy to get wrong: Node
 * network errors have a string `code` (`ECONNRESET`), which is not a status.
 */
export function statusOf(err: unknown): number | undefined {
  if (err === null || typeof err !== 'object') return undefined;
  const o = err as Record<string, unknown>;
  for (const field of ['status', 'statusCode', 'code']) {
    const v = o[field];
    if (typeof v === 'number' && v >= 100 && v < 600) return v;
  }
  return undefined;
}
