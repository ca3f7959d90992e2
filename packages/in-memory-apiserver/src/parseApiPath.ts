/** What a request path addresses. */
export type ApiPath =
  | { kind: 'root' | 'version' | 'health' | 'api' | 'apis' | 'unknown' }
  | { kind: 'group'; group: string }
  | { kind: 'groupVersion'; group: string; version: string }
  | {
      kind: 'resource';
      group: string;
      version: string;
      resource: string;
      /** Set for `/namespaces/{ns}/...` paths. */
      namespace?: string;
      name?: string;
      subresource?: string;
      /** The legacy `/watch/` path prefix was used. */
      watchPath: boolean;
    };

/**
 * Parses a Kubernetes API path. `isNamespacedResource(group, version,
 * resource)` resolves the one ambiguity of the URL scheme:
 * `/api/v1/namespaces/{a}/{b}` is a collection in namespace `a` when `b` is a
 * namespaced resource, else subresource `b` of namespace `a`.
 */
export function parseApiPath(
  pathname: string,
  isNamespacedResource: (group: string, version: string, resource: string) => boolean,
): ApiPath {
  let segments: string[];
  try {
    segments = pathname
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s));
  } catch {
    return { kind: 'unknown' };
  }
  const [first, second, third] = segments;
  if (first === undefined) return { kind: 'root' };
  if (first === 'version' && segments.length === 1) return { kind: 'version' };
  if (first === 'healthz' || first === 'readyz' || first === 'livez') return { kind: 'health' };
  let group: string;
  let version: string;
  let rest: string[];
  if (first === 'api') {
    if (second === undefined) return { kind: 'api' };
    group = '';
    version = second;
    rest = segments.slice(2);
  } else if (first === 'apis') {
    if (second === undefined) return { kind: 'apis' };
    if (third === undefined) return { kind: 'group', group: second };
    group = second;
    version = third;
    rest = segments.slice(3);
  } else {
    return { kind: 'unknown' };
  }
  if (rest.length === 0) return { kind: 'groupVersion', group, version };
  const watchPath = rest[0] === 'watch';
  if (watchPath) rest = rest.slice(1);
  const base = { kind: 'resource' as const, group, version, watchPath };
  if (rest[0] === 'namespaces' && rest.length >= 3 && isNamespacedResource(group, version, rest[2] as string)) {
    if (rest.length > 5) return { kind: 'unknown' };
    const [, namespace, resource, name, subresource] = rest as [string, string, string, string?, string?];
    return withOptional({ ...base, namespace, resource }, name, subresource);
  }
  if (rest.length > 3) return { kind: 'unknown' };
  const [resource, name, subresource] = rest as [string, string?, string?];
  return withOptional({ ...base, resource }, name, subresource);
}

function withOptional<T extends object>(
  route: T,
  name: string | undefined,
  subresource: string | undefined,
): T & { name?: string; subresource?: string } {
  const out: T & { name?: string; subresource?: string } = { ...route };
  if (name !== undefined) out.name = name;
  if (subresource !== undefined) out.subresource = subresource;
  return out;
}
