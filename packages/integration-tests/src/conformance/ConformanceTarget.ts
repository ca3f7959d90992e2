import type { KubeConfig } from '@kubernetes/client-node';

/** One running API server the conformance suite talks to. */
export interface ConformanceCluster {
  /** Admin credentials (authorisation never gets in the way). */
  kubeConfig: KubeConfig;
  stop(): Promise<void>;
  /**
   * Makes every resourceVersion issued so far too old: a watch from one
   * gets 410 Expired. In-memory: `faults.expireAll()`; real: etcd
   * compaction (with the watch cache off, so the 410 is immediate).
   */
  forceExpire(): Promise<void>;
}

/** What a suite asks of {@link ConformanceTarget.start}. */
export interface ConformanceStartOptions {
  /**
   * Serve watches from a watch cache (the real server's default, needed for
   * BOOKMARK events). Default false: the real server then reads straight from
   * etcd, so {@link ConformanceCluster.forceExpire} takes effect at once.
   * The in-memory server behaves like a watch cache either way.
   */
  watchCache?: boolean;
  /**
   * Serve streaming lists (`sendInitialEvents`, the WatchList feature).
   * Default true. False: real `--feature-gates=WatchList=false`, in-memory
   * `watchList: 'disabled'`.
   */
  watchList?: boolean;
}

/**
 * An API server implementation the same conformance tests run against:
 * the in-memory fake in the unit tier, a real kube-apiserver in the real tier.
 *
 * Easy to get wrong: `start` is called once per describe block, not per
 * test; tests isolate themselves with their own namespaces.
 */
export interface ConformanceTarget {
  name: 'in-memory' | 'kube-apiserver';
  start(opts?: ConformanceStartOptions): Promise<ConformanceCluster>;
}
