// Applies manifest objects to an API server with server-side apply, finding
// each kind's resource through discovery (a CRD's kinds appear once it is
// established), the way `kubectl apply --server-side` would.
import type { KubeConfig } from '@kubernetes/client-node';
import { waitFor } from '@protean/core/testing';
import { kubeRequest } from '@protean/envtest';
import type { Manifest } from './deployManifests.js';

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

/** Discovery of kinds to resources, asked once per group version and again when a kind is missing (a new CRD). */
export class ResourcePaths {
  private readonly byGroupVersion = new Map<string, ApiResource[]>();

  constructor(private readonly kubeConfig: KubeConfig) {}

  /** The collection path of `o`'s kind (in `o`'s namespace when namespaced) and its name path. */
  async pathsOf(o: Manifest): Promise<{ collection: string; object: string }> {
    const resource = (await this.find(o, false)) ?? (await this.find(o, true));
    if (resource === undefined) throw new Error(`no resource serves ${o.apiVersion} ${o.kind} (is its CRD applied?)`);
    const base = o.apiVersion.includes('/') ? `/apis/${o.apiVersion}` : `/api/${o.apiVersion}`;
    let collection = `${base}/${resource.name}`;
    if (resource.namespaced) {
      if (o.metadata.namespace === undefined) throw new Error(`${o.kind} ${o.metadata.name} is namespaced but has no namespace`);
      collection = `${base}/namespaces/${o.metadata.namespace}/${resource.name}`;
    }
    return { collection, object: `${collection}/${o.metadata.name}` };
  }

  private async find(o: Manifest, refresh: boolean): Promise<ApiResource | undefined> {
    if (refresh || !this.byGroupVersion.has(o.apiVersion)) {
      const path = o.apiVersion.includes('/') ? `/apis/${o.apiVersion}` : `/api/${o.apiVersion}`;
      const r = await kubeRequest(this.kubeConfig, 'GET', path);
      this.byGroupVersion.set(o.apiVersion, r.status === 200 ? ((r.json['resources'] ?? []) as ApiResource[]) : []);
    }
    return this.byGroupVersion.get(o.apiVersion)!.find((r) => r.kind === o.kind && !r.name.includes('/'));
  }
}

/**
 * Server-side applies every object in order (field manager `manifests`,
 * forced); after a CustomResourceDefinition, waits until it is established.
 * Rejects naming the object on any refusal.
 */
export async function applyManifests(
  kubeConfig: KubeConfig,
  objects: readonly Manifest[],
  paths = new ResourcePaths(kubeConfig),
): Promise<void> {
  for (const o of objects) {
    const { object } = await paths.pathsOf(o);
    const r = await kubeRequest(kubeConfig, 'PATCH', `${object}?fieldManager=manifests&force=true`, {
      body: o,
      contentType: 'application/apply-patch+yaml',
    });
    if (r.status !== 200 && r.status !== 201) throw new Error(`applying ${o.kind} ${o.metadata.name}: ${r.status} ${r.text.slice(0, 400)}`);
    if (o.kind === 'CustomResourceDefinition') {
      await waitFor(
        async () => {
          const crd = await kubeRequest(kubeConfig, 'GET', object);
          const conditions = (crd.json['status'] as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [];
          return conditions.some((c) => c.type === 'Established' && c.status === 'True');
        },
        { timeoutMs: 30_000, intervalMs: 100, message: `CRD ${o.metadata.name} established` },
      );
    }
  }
}
