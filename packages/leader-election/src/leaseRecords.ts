import { formatMicroTime } from './formatMicroTime.js';
import type { Lease, LeaseSpec } from './Lease.js';

/** Who a lease names as its holder; `''` for none (never held, or released). */
export function holderOf(lease: Lease | undefined): string {
  return lease?.spec?.holderIdentity ?? '';
}

/**
 * What a candidate compares between two reads of the lease to tell whether
 * its holder renewed it: the leader-election fields of the spec (not the
 * resourceVersion, which also moves on unrelated writes such as labels).
 */
export function leaseRecordKey(lease: Lease): string {
  const s = lease.spec ?? {};
  return JSON.stringify([
    s.holderIdentity ?? '',
    s.leaseDurationSeconds ?? null,
    s.acquireTime ?? null,
    s.renewTime ?? null,
    s.leaseTransitions ?? 0,
  ]);
}

/** What a leader election write puts into the spec. */
export interface LeaseWrite {
  readonly identity: string;
  readonly leaseDurationSeconds: number;
  /** Wall-clock epoch ms of the write. */
  readonly nowMs: number;
}

/** A new lease held by `w.identity`. */
export function newLease(namespace: string, name: string, w: LeaseWrite): Lease {
  const now = formatMicroTime(w.nowMs);
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name, namespace },
    spec: {
      holderIdentity: w.identity,
      leaseDurationSeconds: w.leaseDurationSeconds,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: 0,
    },
  };
}

/**
 * `lease` held by `w.identity` from now on: a renewal when it already was
 * (acquireTime and leaseTransitions kept), else a takeover (acquireTime
 * now, leaseTransitions + 1). Other spec fields are kept.
 */
export function heldLease(lease: Lease, w: LeaseWrite): Lease {
  const now = formatMicroTime(w.nowMs);
  const spec: LeaseSpec = { ...lease.spec, holderIdentity: w.identity, leaseDurationSeconds: w.leaseDurationSeconds, renewTime: now };
  if (holderOf(lease) !== w.identity) {
    spec.acquireTime = now;
    spec.leaseTransitions = (lease.spec?.leaseTransitions ?? 0) + 1;
  } else {
    spec.acquireTime ??= now;
    spec.leaseTransitions ??= 0;
  }
  return { ...lease, spec };
}

/**
 * `lease` handed back: no holder and a one-second duration, so that any
 * candidate takes it at its next try (as client-go's release writes it);
 * leaseTransitions is kept.
 */
export function releasedLease(lease: Lease, nowMs: number): Lease {
  const now = formatMicroTime(nowMs);
  const { holderIdentity: _holder, ...rest } = lease.spec ?? {};
  return {
    ...lease,
    spec: { ...rest, leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaseTransitions: lease.spec?.leaseTransitions ?? 0 },
  };
}
