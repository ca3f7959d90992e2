/**
 * The fields of a `coordination.k8s.io/v1` LeaseSpec leader election
 * reads and writes. Times are MicroTime strings (RFC 3339 with exactly six
 * fractional digits, see {@link formatMicroTime}). Other fields a newer
 * server returns (`strategy`, `preferredHolder`) are kept on update.
 */
export interface LeaseSpec {
  /** Who holds the lease; absent or `""` when nobody does (a released lease). */
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  /** How many times the holder changed. */
  leaseTransitions?: number;
  [field: string]: unknown;
}

/** A `coordination.k8s.io/v1` Lease as JSON; `metadata.resourceVersion` makes an update conditional. */
export interface Lease {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    [field: string]: unknown;
  };
  spec?: LeaseSpec;
}
