import type { OwnerReference } from '@protean/core';

/** One `metadata.managedFields` entry, as the API server writes it. */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

/**
 * `metav1.ObjectMeta` as plain JSON: timestamps are RFC 3339 strings, as
 * the API server sends them.
 */
export interface ObjectMetadata {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
}

/**
 * Any Kubernetes object as plain JSON. Your own interfaces (`interface
 * Backup { apiVersion: string; kind: string; metadata: ...; spec: ... }`)
 * are accepted wherever a `KubeObject` is, with no index signature needed.
 *
 * Easy to get wrong: these are the server's JSON, not
 * `@kubernetes/client-node`'s model classes: `creationTimestamp` is a
 * string, not a `Date`, and field names are the wire names.
 */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMetadata;
}

/**
 * An object as the API server returns it: your type `T`, with the
 * server's metadata (`uid`, `resourceVersion`, `managedFields`, ...)
 * readable even when `T` names only what you sent, and `metadata.name`
 * always a string (every stored object has one; a create with
 * `generateName` gets it from the server).
 */
export type Stored<T extends KubeObject> = T & { metadata: ObjectMetadata & { name: string } };

/**
 * Which object a request addresses: `name`, and `namespace` for a
 * namespaced resource (omit it, or pass `""`, for a cluster-scoped one).
 * A handler's `req` (`{ namespace, name }`) is one.
 */
export interface ObjectKey {
  readonly namespace?: string | undefined;
  readonly name: string;
}
