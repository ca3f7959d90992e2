import type { KubeConfigLike } from '@protean/transport';
import { KubeApiError } from '@protean/core';
import {
  FakeLeaseClient,
  KubeLeaseClient,
  LeaseRequestError,
  type Lease,
  type LeaseVerb,
  type LeaseClient,
  type LeaseWatchEvent,
  type LeaseWatchSelector,
} from '@protean/leader-election';
import { kubeGetJson, kubeJson } from './kubeGetJson.js';

/**
 * The Lease calls of shard membership: leader election's (with the
 * optional label-selected `watch`, which makes members see joins, leaves
 * and releases at once), a LIST by label and a guarded DELETE. Each
 * rejects with a `LeaseRequestError` (verb `list`, `delete`, ...) when the
 * server answers an error status.
 */
export interface MemberLeaseClient extends LeaseClient {
  /** The leases of `namespace` matching the label selector `labelSelector` (`key=value`). */
  list(namespace: string, labelSelector: string, signal: AbortSignal): Promise<Lease[]>;
  /**
   * Deletes the lease if its `resourceVersion` is still `resourceVersion`
   * (a precondition: a lease renewed meanwhile stays). Resolves true when
   * it was deleted, false when it was gone already or had changed.
   */
  delete(namespace: string, name: string, resourceVersion: string, signal: AbortSignal): Promise<boolean>;
}

/** {@link MemberLeaseClient} over HTTP: `KubeLeaseClient` for get/create/update/watch, one GET for the list. */
export class KubeMemberLeaseClient extends KubeLeaseClient implements MemberLeaseClient {
  constructor(private readonly config: KubeConfigLike) {
    super(config);
  }

  async list(namespace: string, labelSelector: string, signal: AbortSignal): Promise<Lease[]> {
    const q = new URLSearchParams({ labelSelector });
    const path = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases?${q.toString()}`;
    const key = `${namespace}/*`;
    const answer = await kubeGetJson(this.config, path, signal, (res) => LeaseRequestError.fromAnswer('list', key, res, { path }));
    const items = (answer.body as { items?: unknown } | undefined)?.items;
    if (!Array.isArray(items)) {
      throw new LeaseRequestError('list', key, `${answer.status}: the answer is not a lease list`, { status: answer.status, path });
    }
    return items as Lease[];
  }

  async delete(namespace: string, name: string, resourceVersion: string, signal: AbortSignal): Promise<boolean> {
    const path = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases/${encodeURIComponent(name)}`;
    const body = { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { resourceVersion } };
    const key = `${namespace}/${name}`;
    try {
      await kubeJson(this.config, 'DELETE', path, body, signal, (res) => LeaseRequestError.fromAnswer('delete', key, res, { path }));
      return true;
    } catch (err) {
      // Gone already, or changed since it was read (the precondition): not deleted, and no failure.
      if (err instanceof KubeApiError && (err.status === 404 || err.status === 409)) return false;
      throw err;
    }
  }
}

/** {@link MemberLeaseClient} in memory: leader election's `FakeLeaseClient`, listing the leases it holds. */
export class FakeMemberLeaseClient extends FakeLeaseClient implements MemberLeaseClient {
  private readonly names = new Set<string>();
  /** Deleted leases: the base client cannot forget a lease, so this one hides them. */
  private readonly deleted = new Set<string>();

  override async get(namespace: string, name: string, signal: AbortSignal): Promise<Lease | undefined> {
    const lease = await super.get(namespace, name, signal);
    return this.deleted.has(`${namespace}/${name}`) ? undefined : lease;
  }

  override async create(lease: Lease, signal: AbortSignal): Promise<Lease> {
    const key = `${lease.metadata.namespace ?? ''}/${lease.metadata.name}`;
    if (this.deleted.has(key)) {
      if (signal.aborted || this.failing) return super.create(lease, signal); // fails as the base client does
      this.deleted.delete(key);
      this.names.add(key);
      const { resourceVersion: _rv, ...metadata } = lease.metadata;
      return super.write({ ...lease, metadata });
    }
    const created = await super.create(lease, signal);
    this.names.add(key);
    return created;
  }

  override async update(lease: Lease, signal: AbortSignal): Promise<Lease> {
    const key = `${lease.metadata.namespace ?? ''}/${lease.metadata.name}`;
    if (this.deleted.has(key)) throw new LeaseRequestError('update', key, '404 NotFound', { status: 404, reason: 'NotFound' });
    return super.update(lease, signal);
  }

  override write(lease: Lease): Lease {
    const key = `${lease.metadata.namespace ?? ''}/${lease.metadata.name}`;
    this.deleted.delete(key);
    this.names.add(key);
    return super.write(lease);
  }

  async delete(namespace: string, name: string, resourceVersion: string, signal: AbortSignal): Promise<boolean> {
    const key = `${namespace}/${name}`;
    if (this.failing) throw unavailable('delete', key);
    if (signal.aborted) throw new LeaseRequestError('delete', key, 'aborted', { reason: 'Aborted' });
    const lease = this.deleted.has(key) ? undefined : this.read(namespace, name);
    if (lease === undefined || lease.metadata.resourceVersion !== resourceVersion) return false;
    this.deleted.add(key);
    this.names.delete(key);
    this.notify('DELETED', lease);
    return true;
  }

  override watch(
    namespace: string,
    selector: LeaseWatchSelector,
    onEvent: (event: LeaseWatchEvent) => void,
    signal: AbortSignal,
  ): Promise<void> {
    // The base client cannot forget a lease: hide the deleted ones, as get and list do.
    return super.watch(
      namespace,
      selector,
      (e) => {
        const key = `${e.lease.metadata.namespace ?? ''}/${e.lease.metadata.name}`;
        if (e.type === 'DELETED' || !this.deleted.has(key)) onEvent(e);
      },
      signal,
    );
  }

  async list(namespace: string, labelSelector: string, signal: AbortSignal): Promise<Lease[]> {
    if (this.failing) throw unavailable('list', `${namespace}/*`);
    if (signal.aborted) throw new LeaseRequestError('list', `${namespace}/*`, 'aborted', { reason: 'Aborted' });
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

/** The 503 a failing fake answers, as leader election's `FakeLeaseClient` does for its calls. */
function unavailable(verb: LeaseVerb, key: string): LeaseRequestError {
  const message = 'the server is currently unable to handle the request';
  return new LeaseRequestError(verb, key, `503 ServiceUnavailable: ${message}`, {
    status: 503,
    reason: 'ServiceUnavailable',
    serverMessage: message,
  });
}
