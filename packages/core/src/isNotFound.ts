/**
 * True when `err` is a Kubernetes 404: an `ApiException` from
 * `@kubernetes/client-node` (`code: 404`), an HTTP error carrying
 * `status`/`statusCode: 404`, a `Status` body with `code: 404` or
 * `reason: "NotFound"`, or any of these as the `cause` of a wrapping error.
 */
export function isNotFound(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e !== null && typeof e === 'object' && depth < 8; depth++) {
    const o = e as Record<string, unknown>;
    if (o['code'] === 404 || o['status'] === 404 || o['statusCode'] === 404) return true;
    const body = parseBody(o['body']);
    if (body !== undefined && (body['code'] === 404 || body['reason'] === 'NotFound')) return true;
    const response = o['response'];
    if (response !== null && typeof response === 'object') {
      const r = response as Record<string, unknown>;
      if (r['status'] === 404 || r['statusCode'] === 404) return true;
    }
    e = o['cause'];
  }
  return false;
}

function parseBody(body: unknown): Record<string, unknown> | undefined {
  if (body !== null && typeof body === 'object') return body as Record<string, unknown>;
  if (typeof body === 'string' && body.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(body);
      if (parsed !== null && typeof parsed === 'object') return parsed as Record<string, unknown>;
    } catch {
      // not JSON: not a Status body
    }
  }
  return undefined;
}
