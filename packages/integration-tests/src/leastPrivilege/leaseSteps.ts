// The lease steps of a life cycle with two replicas: a renewal; the
// leader stopped (SIGTERM: it drains and releases the lease) and the
// standby taking over, which is when a standby's lease reads, watch and
// take-over are used; a sharded member leaving, whose released lease the
// survivor deletes.
import type { KubeConfig } from '@kubernetes/client-node';
import { kubeRequest } from '@protean/envtest';
import type { ControllerProcess } from './controllerProcess.js';
import type { LifecycleStep } from './driveLifecycle.js';

/** Replica identities are `<POD_NAME>_<random>`, as the generated main.ts makes them. */
const podOf = (holderIdentity: string): string => holderIdentity.slice(0, holderIdentity.lastIndexOf('_'));

async function holders(admin: KubeConfig, namespace: string): Promise<string[]> {
  const r = await kubeRequest(admin, 'GET', `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`);
  return ((r.json['items'] ?? []) as { spec?: { holderIdentity?: string } }[])
    .map((l) => l.spec?.holderIdentity ?? '')
    .filter((h) => h !== '')
    .map(podOf);
}

/**
 * Stops the replica holding a lease in `namespace` (after `beforeStop`)
 * and waits until one of the others holds it.
 */
export function leaderHandover(
  admin: KubeConfig,
  namespace: string,
  replicas: ControllerProcess[],
  beforeStop: (replica: ControllerProcess) => Promise<void> = async () => {},
): LifecycleStep {
  return {
    name: 'stop the leader; the standby takes over',
    act: async () => {
      const held = await holders(admin, namespace);
      const holder = replicas.find((r) => held.includes(r.name));
      if (holder === undefined) throw new Error(`no replica holds a lease in ${namespace} (holders: ${held.join(', ')})`);
      await beforeStop(holder);
      replicas.splice(replicas.indexOf(holder), 1);
      await holder.stop();
    },
    pending: async () => {
      const held = await holders(admin, namespace);
      return replicas.some((r) => held.includes(r.name))
        ? []
        : [`a lease in ${namespace} held by ${replicas.map((r) => r.name).join(' or ')} (held: ${held.join(', ') || 'none'})`];
    },
  };
}

/**
 * Waits until a lease in `namespace` was renewed after it was acquired (a
 * leader renews every retry period), so a refused renewal shows before the
 * leader is stopped.
 */
export function leaseRenewed(admin: KubeConfig, namespace: string): LifecycleStep {
  return {
    name: 'the leader renews its lease',
    act: async () => {},
    pending: async () => {
      const r = await kubeRequest(admin, 'GET', `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`);
      const leases = (r.json['items'] ?? []) as { spec?: { acquireTime?: string; renewTime?: string; holderIdentity?: string } }[];
      const renewed = leases.some(
        (l) => l.spec?.holderIdentity && l.spec.renewTime && l.spec.acquireTime && l.spec.renewTime > l.spec.acquireTime, // same RFC 3339 micro format: ordered as strings
      );
      return renewed ? [] : [`a lease in ${namespace} renewed after it was acquired`];
    },
  };
}

/**
 * Stops one member of a sharded group (after `beforeStop`): it releases its
 * lease, and the survivors must delete it (the lease of a member gone for
 * good) and take its share over.
 */
export function memberLeaves(
  admin: KubeConfig,
  namespace: string,
  replicas: ControllerProcess[],
  beforeStop: (replica: ControllerProcess) => Promise<void> = async () => {},
): LifecycleStep {
  return {
    name: 'a member leaves; its lease is removed',
    act: async () => {
      const leaving = replicas[0];
      if (leaving === undefined) throw new Error('no member to stop');
      await beforeStop(leaving);
      replicas.splice(0, 1);
      await leaving.stop();
    },
    pending: async () => {
      const r = await kubeRequest(admin, 'GET', `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`);
      const count = ((r.json['items'] ?? []) as unknown[]).length;
      return count === replicas.length ? [] : [`${replicas.length} member lease(s) in ${namespace} (have ${count})`];
    },
  };
}
