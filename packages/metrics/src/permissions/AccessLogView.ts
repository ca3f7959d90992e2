/**
 * One access as `@protean/transport`'s `kubeAccessOf` describes it: a
 * resource access (`verb`, `group`, `resource`, `subresource`,
 * `namespace`) or a non-resource URL (`verb`, `path`). Declared here by
 * shape, so this package does not depend on the transport.
 */
export type ObservedAccess =
  | {
      readonly kind: 'resource';
      readonly verb: string;
      readonly group: string;
      readonly resource: string;
      readonly subresource?: string;
      readonly namespace?: string;
    }
  | { readonly kind: 'nonResource'; readonly verb: string; readonly path: string };

/** One entry of an access log (`@protean/transport`'s `AccessRecord`). */
export interface ObservedAccessRecord {
  readonly access: ObservedAccess;
  readonly key: string;
  readonly requests: number;
  readonly denials: number;
  /** The latest answer refused it (403 from the authorizer). */
  readonly denied: boolean;
  readonly status: number;
  /** The server's message of the latest refusal, when its body was read. */
  readonly message?: string;
  readonly lastAtMs: number;
}

/**
 * What the permissions check reads: `@protean/transport`'s `AccessLog`
 * (`pool.accessLog`) fits as it is.
 */
export interface AccessLogView {
  entries(): readonly ObservedAccessRecord[];
  /** Calls `listener` when an access is refused after being allowed, or allowed after being refused; returns an unsubscribe function. */
  onTransition(listener: (record: ObservedAccessRecord, transition: 'denied' | 'allowed') => void): () => unknown;
}

/** A connection pool with an access log: `@protean/transport`'s `KubeConnectionPool` (`sharedConnectionPool(kubeConfig)`). */
export interface ConnectionPoolView {
  readonly accessLog: AccessLogView;
}

/**
 * The access in words: `patch configmaps in namespace demo`,
 * `watch webapps.demo.protean.dev cluster-wide`,
 * `update webapps.demo.protean.dev/status in namespace demo`, `get path /metrics`.
 */
export function describeAccess(access: ObservedAccess): string {
  if (access.kind === 'nonResource') return `${access.verb} path ${access.path}`;
  return `${access.verb} ${accessResourceName(access)} ${access.namespace === undefined ? 'cluster-wide' : `in namespace ${access.namespace}`}`;
}

/** `configmaps`, `webapps.demo.protean.dev/status`: kubectl's resource.group, with the subresource. */
export function accessResourceName(access: { readonly group: string; readonly resource: string; readonly subresource?: string }): string {
  return `${access.resource}${access.group === '' ? '' : `.${access.group}`}${access.subresource === undefined ? '' : `/${access.subresource}`}`;
}
