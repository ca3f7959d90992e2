import type { KubeConfig } from '@kubernetes/client-node';

/** Options of {@link startKubeApiServer}. */
export interface KubeApiServerOptions {
  /**
   * Serve reads and watches from the API server's watch cache (the
   * production default). `false` (`--watch-cache=false`) sends everything to
   * etcd, so a watch from a compacted resourceVersion gets an in-stream 410
   * right after {@link KubeApiServer.compact}. Default true.
   */
  watchCache?: boolean;
  /**
   * Turns on kube-apiserver's OpenTelemetry tracing: its spans go by OTLP/gRPC
   * to `endpoint` (`host:port`, e.g. `127.0.0.1:4317`), sampled at
   * `samplingRatePerMillion` (default 1000000: every request). It continues
   * a W3C `traceparent` it receives.
   */
  tracing?: { readonly endpoint: string; readonly samplingRatePerMillion?: number };
  /** More kube-apiserver flags, appended after the harness's (a later flag wins). */
  extraArgs?: readonly string[];
  /** Directory holding `kube-apiserver` and `etcd`; default: see `findKubeBinaries`. */
  binDir?: string;
  /** Budget for etcd and kube-apiserver to become ready. Default 90000. */
  startTimeoutMs?: number;
  /**
   * Controllers of kube-controller-manager to run against the server
   * (`--controllers`), e.g. `['garbagecollector', 'namespace']`: then owner
   * references cascade and namespaces finish terminating, as on a cluster.
   * Default: none, and no kube-controller-manager (as envtest).
   */
  controllers?: readonly string[];
}

/**
 * A running kube-apiserver + etcd pair on loopback ports, with certificate
 * authentication and RBAC, and no controller-manager (like envtest) unless
 * `controllers` asked for one.
 *
 * Easy to get wrong: call `stop()` in `afterAll` even when a test failed
 * (it is idempotent); without `controllers`, namespaces never finish
 * terminating and nothing garbage-collects.
 */
export interface KubeApiServer {
  /** `https://127.0.0.1:PORT`; unchanged by {@link KubeApiServer.restart}. */
  readonly url: string;
  /**
   * A client-node KubeConfig: the cluster with its CA data and an admin
   * client certificate (CN=admin, O=system:masters). A fresh copy on every
   * read, so mutating it affects nobody else.
   */
  readonly kubeConfig: KubeConfig;
  /**
   * A KubeConfig whose client certificate (signed by the same CA) names
   * `user` in `groups`: no RBAC bindings, so most requests get 403.
   */
  kubeConfigFor(user: string, groups?: readonly string[]): KubeConfig;
  /** etcd's client URL, `http://127.0.0.1:PORT` (its JSON gateway answers `/v3/kv/...`). */
  readonly etcdUrl: string;
  /** SIGTERM kube-apiserver then etcd, wait for both to exit, delete the temp dir. Idempotent. */
  stop(): Promise<void>;
  /**
   * Restart kube-apiserver only, on the same port against the same etcd
   * data; resolves once `/readyz` is ok. `kill: true` SIGKILLs it (a crash)
   * instead of stopping it with SIGTERM.
   */
  restart(options?: { readonly kill?: boolean }): Promise<void>;
  /**
   * Compacts etcd at its current revision and records it in `compact_rev_key`
   * (as kube-apiserver's own compactor does); returns that revision. Older
   * resourceVersions then answer 410 — at once with `watchCache: false`,
   * after the watch cache's next 15 s poll otherwise.
   */
  compact(): Promise<number>;
  /** The last lines of both processes' output, for failure messages. */
  logs(): string;
}
