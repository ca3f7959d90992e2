import type { KubeConfigLike } from './KubeConfigLike.js';
import { KubeConnectionPool } from './KubeConnectionPool.js';

const POOLS = Symbol.for('@protean/transport:sharedConnectionPools');

/** One registry per process, even with two copies of this package installed. */
function registry(): WeakMap<KubeConfigLike, KubeConnectionPool> {
  const g = globalThis as { [POOLS]?: WeakMap<KubeConfigLike, KubeConnectionPool> };
  return (g[POOLS] ??= new WeakMap());
}

/**
 * The {@link KubeConnectionPool} every Protean package uses for
 * `kubeConfig` unless given another: created on first use with the
 * default options, and kept as long as the KubeConfig object lives.
 *
 * Easy to get wrong: the pool belongs to the KubeConfig *object*; a copy
 * (or a second `loadFromDefault()`) gets a pool, and connections, of its
 * own.
 */
export function sharedConnectionPool(kubeConfig: KubeConfigLike): KubeConnectionPool {
  const pools = registry();
  let pool = pools.get(kubeConfig);
  if (pool === undefined) {
    pool = new KubeConnectionPool(kubeConfig);
    pools.set(kubeConfig, pool);
  }
  return pool;
}
