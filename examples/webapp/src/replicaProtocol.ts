import type { HashRange } from '@protean/sharding';

/** Lease timings of a shard group's membership. */
export interface LeaseTimings {
  /** Whole seconds, in milliseconds: a member whose lease did not change for this long is counted out. */
  readonly leaseDurationMs: number;
  /** A replica that could not renew for this long drops its own share. */
  readonly renewDeadlineMs: number;
  /** Renew, list and recompute every period. */
  readonly retryPeriodMs: number;
}

/** What the parent hands one replica process (as JSON in {@link REPLICA_CONFIG_ENV}). */
export interface ReplicaConfig {
  /** The replica's identity in the shard group, e.g. `replica-1`. */
  readonly identity: string;
  /** `KubeConfig.exportConfig()` of the API server. */
  readonly kubeconfig: string;
  /** Namespace of the member leases. */
  readonly leaseNamespace: string;
  /** The shard group: label value and name prefix of the member leases. */
  readonly group: string;
  readonly timings: LeaseTimings;
  /** pino level of the replica's own logs (JSON on its stderr). */
  readonly logLevel: string;
}

/** The environment variable carrying a replica's {@link ReplicaConfig}. */
export const REPLICA_CONFIG_ENV = 'PROTEAN_WEBAPP_REPLICA';

/**
 * What a replica process reports to its parent over the IPC channel
 * (`serialization: 'advanced'`, so hash bounds travel as bigints).
 */
export type ReplicaEvent =
  /** Set up: the shard filter mode and the namespaces the split balances. */
  | { readonly type: 'started'; readonly mode: string; readonly reason: string; readonly keys: readonly string[] }
  /** WebApp is registered behind the shard gate. */
  | { readonly type: 'ready' }
  /** This replica's share changed (after the gate drained and the informers moved). */
  | { readonly type: 'ranges'; readonly ranges: readonly HashRange[]; readonly members: readonly string[] }
  /** A handoff transition of its membership: a range acquired, waited for (another member still holds it), released or lost. */
  | { readonly type: 'transition'; readonly kind: string; readonly ranges: readonly HashRange[]; readonly holders: readonly string[] }
  /** One handler pass of an owned WebApp ended; start and end in epoch milliseconds (one clock for every process of the machine). */
  | {
      readonly type: 'reconciled';
      readonly namespace: string;
      readonly name: string;
      readonly outcome: string;
      readonly generation?: number;
      readonly startMs: number;
      readonly endMs: number;
    }
  /** Setup failed; the replica exits 1. */
  | { readonly type: 'failed'; readonly message: string };

/** What the parent sends a replica: stop gracefully (drain, release the lease, exit 0). */
export interface ReplicaCommand {
  readonly type: 'stop';
}
