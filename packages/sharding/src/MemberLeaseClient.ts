import type { KubeConfig } from '@kubernetes/client-node';
import { FakeLeaseClient, KubeLeaseClient, type Lease, type LeaseClient } from '@protean/leader-election';
import { kubeGetJson } from './kubeGetJson.js';

/** The Lease calls of shard membership: leader election's three, and a LIST by label. */
export interface MemberLeaseClient extends LeaseClient {
  /** The leases of `namespace` matching the label selector `labelSelector` (`key=value`). */
  list(namespace: string, labelSelector: string, signal: AbortSignal): Promise<Lease[]>;
}

/** {@link MemberLeaseClient} over HTTP: `KubeLeaseClient` for get/create/update, one GET for the list. */
export class KubeMemberLeaseClient extends KubeLeaseClient implements MemberLeaseClient {
  constructor(private readonly config: KubeConfig) {
    super(config);
  }

  async list(namespace: string, labelSelector: string, signal: AbortSignal): Promise<Lease[]> {
    const q = new URLSearchParams({ labelSelector });
    const path = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases?${q.toString()}`;
    const answer = await kubeGetJson(this.config, path, signal);
    const items = (answer.body as { items?: unknown } | undefined)?.items;
    if (answer.status !== 200 || !Array.isArray(items)) {
      const message = (answer.body as { message?: unknown } | undefined)?.message;
      throw new Error(`list leases in ${namespace} failed: ${answer.status}${typeof message === 'string' ? `: ${message}` : ''}`);
    }
    return items as Lease[];
  }
}

/** {@link MemberLeaseClient} in memory: leader election's `FakeLeaseClient`, listing the leases it holds. */
export class FakeMemberLeaseClient extends FakeLeaseClient implements MemberLeaseClient {
  private readonly names = new Set<string>();

  override async create(lease: Lease, signal: AbortSignal): Promise<Lease> {
    const created = await super.create(lease, signal);
    this.names.add(`${lease.metadata.namespace ?? ''}/${lease.metadata.name}`);
    return created;
  }

  override write(lease: Lease): Lease {
    this.names.add(`${lease.metadata.namespace ?? ''}/${lease.metadata.name}`);
    return super.write(lease);
  }

  async list(namespace: string, labelSelector: string, signal: AbortSignal): Promise<Lease[]> {
    if (this.failing) throw new Error('list leases failed: 503');
    if (signal.aborted) throw new Error('list leases aborted');
    const [key, value] = labelSelector.split('=');
    const out: Lease[] = [];
    for (const full of this.names) {
      const [ns, name] = full.split('/') as [string, string];
      if (ns !== namespace) continue;
      const lease = this.read(ns, name);
      const labels = lease?.metadata['labels'] as Record<string, string> | undefined;
      if (lease !== undefined && key !== undefined && labels?.[key] === value) out.push(lease);
    }
    return out;
  }
}
