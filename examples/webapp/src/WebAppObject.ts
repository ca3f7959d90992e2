import type { Condition } from '@protean/client';

/** What the handler writes through the status subresource. */
export interface WebAppStatus {
  configMapCount?: number;
  observedGeneration?: number;
  /** The `Ready` condition the handler maintains, and any others (kept as they are). */
  conditions?: Condition[];
}

/**
 * An instance of a parent kind (WebApp or WebSite) as the API returns it.
 * `spec` stays `unknown` until {@link parseWebAppSpec} has checked it:
 * the in-memory API server does not enforce the CRD schema.
 */
export interface WebAppObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    generation?: number;
    resourceVersion?: string;
    labels?: Record<string, string>;
  };
  spec?: unknown;
  status?: WebAppStatus;
}

/** The checked spec of an instance, defaults filled in. */
export interface WebAppSpec {
  readonly message: string;
  readonly replicas: number;
}
