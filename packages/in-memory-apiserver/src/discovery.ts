import type { ServedResource } from './ServedResource.js';

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const STATUS_VERBS = ['get', 'patch', 'update'];

/** Kubernetes version priority: GA before beta before alpha, higher numbers first. */
export function compareKubeVersions(a: string, b: string): number {
  const parse = (v: string): [number, number, number] | undefined => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (m === null) return undefined;
    const stage = m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0;
    return [stage, Number(m[1]), Number(m[3] ?? 0)];
  };
  const pa = parse(a);
  const pb = parse(b);
  if (pa === undefined || pb === undefined) {
    if (pa !== undefined) return -1;
    if (pb !== undefined) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  for (let i = 0; i < 3; i++) {
    if (pa[i] !== pb[i]) return (pb[i] as number) - (pa[i] as number);
  }
  return 0;
}

/** `GET /api`. */
export function apiVersions(hostPort: string): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: hostPort }],
  };
}

function versionsByGroup(resources: readonly ServedResource[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const r of resources) {
    if (r.group === '') continue;
    const versions = groups.get(r.group) ?? [];
    if (!versions.includes(r.version)) versions.push(r.version);
    groups.set(r.group, versions);
  }
  for (const v of groups.values()) v.sort(compareKubeVersions);
  return groups;
}

function apiGroup(name: string, versions: string[]): Record<string, unknown> {
  const list = versions.map((version) => ({ groupVersion: `${name}/${version}`, version }));
  return { name, versions: list, preferredVersion: list[0] };
}

/** `GET /apis`: every non-core group served, preferred version first. */
export function apiGroupList(resources: readonly ServedResource[]): Record<string, unknown> {
  const groups = [...versionsByGroup(resources)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map(([name, versions]) => apiGroup(name, versions)) };
}

/** `GET /apis/{group}`, or undefined when the group is not served. */
export function apiGroupDocument(resources: readonly ServedResource[], group: string): Record<string, unknown> | undefined {
  const versions = versionsByGroup(resources).get(group);
  return versions === undefined ? undefined : { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(group, versions) };
}

/**
 * `GET /api/v1` or `GET /apis/{group}/{version}`: the served resources with
 * their `{resource}/status` entries. Undefined when the group/version is not
 * served (the core `v1` is always served).
 *
 * Easy to get wrong: the core document has no `apiVersion`, group documents
 * have `apiVersion: v1`, as the real server sends them.
 */
export function apiResourceList(resources: readonly ServedResource[], group: string, version: string): Record<string, unknown> | undefined {
  const served = resources
    .filter((r) => r.group === group && r.version === version)
    .sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
  if (served.length === 0 && !(group === '' && version === 'v1')) return undefined;
  const entries: Record<string, unknown>[] = [];
  for (const r of served) {
    const entry: Record<string, unknown> = {
      name: r.resource,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: VERBS,
    };
    if (r.shortNames.length > 0) entry['shortNames'] = r.shortNames;
    entries.push(entry);
    if (r.hasStatusSubresource) {
      entries.push({ name: `${r.resource}/status`, singularName: '', namespaced: r.namespaced, kind: r.kind, verbs: STATUS_VERBS });
    }
  }
  const groupVersion = group === '' ? version : `${group}/${version}`;
  return group === ''
    ? { kind: 'APIResourceList', groupVersion, resources: entries }
    : { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources: entries };
}

/** `GET /version`. */
export function versionInfo(): Record<string, unknown> {
  return {
    major: '1',
    minor: '34',
    gitVersion: 'v1.34.0-protean.inmemory',
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2025-01-01T00:00:00Z',
    goVersion: 'go1.24.0',
    compiler: 'gc',
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
}
