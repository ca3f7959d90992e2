import type { GroupVersionResource } from '@protean/core';
import type { KubeTransport } from './KubeTransport.js';

interface ApiResource {
  readonly name?: unknown;
  readonly namespaced?: unknown;
}

/**
 * Whether a resource is namespaced, from the API server's discovery
 * document of its group/version (`/api/v1`, `/apis/apps/v1`), fetched once
 * per group/version and kept. `KubeClient` asks only for requests that name
 * no namespace, so the common case costs nothing.
 *
 * Easy to get wrong: a resource missing from the kept document (a CRD
 * created since) makes it fetch the document again; an answer that is not
 * a discovery document gives `undefined` (unknown), never a guess.
 */
export class ResourceScopes {
  private readonly known = new Map<string, Map<string, boolean>>();

  constructor(
    private readonly transport: KubeTransport,
    private readonly userAgent: string,
  ) {}

  /** True (namespaced), false (cluster-scoped) or undefined (not in discovery, or discovery failed). */
  async namespaced(gvr: GroupVersionResource, signal: AbortSignal | undefined): Promise<boolean | undefined> {
    const key = `${gvr.group}/${gvr.version}`;
    const kept = this.known.get(key)?.get(gvr.resource);
    if (kept !== undefined) return kept;
    const fresh = await this.fetch(gvr, signal);
    if (fresh === undefined) return undefined;
    this.known.set(key, fresh);
    return fresh.get(gvr.resource);
  }

  private async fetch(gvr: GroupVersionResource, signal: AbortSignal | undefined): Promise<Map<string, boolean> | undefined> {
    const path =
      gvr.group === ''
        ? `/api/${encodeURIComponent(gvr.version)}`
        : `/apis/${encodeURIComponent(gvr.group)}/${encodeURIComponent(gvr.version)}`;
    let body: { resources?: unknown };
    try {
      const res = await this.transport.send({
        method: 'GET',
        path,
        headers: { accept: 'application/json', 'user-agent': this.userAgent },
        signal,
      });
      if (res.status !== 200) return undefined;
      body = JSON.parse(res.body) as { resources?: unknown };
    } catch {
      if (signal?.aborted === true) throw signal.reason;
      // Discovery is a courtesy check: when it fails, the request itself goes ahead and reports what it meets.
      return undefined;
    }
    if (!Array.isArray(body.resources)) return undefined;
    const out = new Map<string, boolean>();
    for (const r of body.resources as ApiResource[]) {
      if (typeof r.name === 'string' && typeof r.namespaced === 'boolean') out.set(r.name, r.namespaced);
    }
    return out;
  }
}
