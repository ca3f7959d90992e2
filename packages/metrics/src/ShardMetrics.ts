import { Counter, Gauge, type Registry } from 'prom-client';
import type { ReadinessCheck } from './MetricsServer.js';

/** A hash range as `@protean/sharding` writes it: `start` inclusive, `end` exclusive, in `[0, 2^64]`. */
export interface ShardRangeView {
  readonly start: bigint;
  readonly end: bigint;
}

/** The part of a shard member's status the shard metrics read (`ShardMembershipStatus` of `@protean/sharding`). */
export interface ShardStatusView {
  readonly group: string;
  readonly members: readonly string[];
  /** Ranges reconciled now. */
  readonly ranges: readonly ShardRangeView[];
  readonly waiting: readonly unknown[];
  readonly releasing: readonly ShardRangeView[];
  readonly renewing: boolean;
  readonly watching: boolean;
  readonly keysPerMember: ReadonlyMap<string, number>;
}

/**
 * What {@link instrumentSharding} observes: `ShardMembership` of
 * `@protean/sharding` is one (this package does not depend on sharding).
 */
export interface ShardMembershipSource {
  readonly identity: string;
  status(): ShardStatusView;
  onTransition(listener: (transition: { readonly kind: string }) => void): () => void;
}

/**
 * What a replica's informers cache, per resource: `ShardedInformerSource`
 * of `@protean/sharding` (e.g. from `kubeShardInformerSource`) is one.
 */
export interface ShardCacheSource {
  cachedObjects(): readonly {
    readonly gvr: { readonly group: string; readonly version: string; readonly resource: string };
    readonly objects: readonly unknown[];
  }[];
}

/** Options of {@link instrumentSharding}. */
export interface ShardMetricsOptions {
  /** How the replica's informers filter (`detectShardSelectorSupport`'s mode), for `dynamic_controller_shard_selector_mode`. */
  readonly mode?: 'server' | 'client';
  /** The replica's sharded informer source, for `dynamic_controller_shard_cached_objects`. */
  readonly cache?: ShardCacheSource;
}

const SPACE = 1n << 64n;

/**
 * Registers the shard gauges of one member on `registry`, read from
 * `membership.status()` at scrape time (so they cannot drift), and counts
 * its transitions:
 *
 * - `dynamic_controller_shard_members{group}`: live members as this replica sees them;
 * - `dynamic_controller_shard_ranges_owned{group,identity}`: ranges it reconciles now;
 * - `dynamic_controller_shard_ranges_waiting{group,identity}`: assigned ranges still held by another member;
 * - `dynamic_controller_shard_ranges_releasing{group,identity}`: given-up ranges whose passes still drain;
 * - `dynamic_controller_shard_hash_fraction{group,identity}`: the share of the hash space it reconciles;
 * - `dynamic_controller_shard_keys{group,member}`: keys (e.g. namespaces) per member of the current assignment;
 * - `dynamic_controller_shard_renewing{group,identity}` and `dynamic_controller_shard_watching{group,identity}`: 1 or 0;
 * - `dynamic_controller_shard_selector_mode{mode}`: 1 for the filtering mode (`server` or `client`), when given;
 * - `dynamic_controller_shard_cached_objects{group,identity,resource}`: objects the informers of `options.cache` hold per
 *   resource (`group/version/resource`), before the client-side filter, when given;
 * - `dynamic_controller_shard_transitions_total{group,identity,transition}`: `acquired`, `waiting`, `released`, `lost`.
 *
 * Returns a function that stops counting transitions and removes the metrics.
 *
 * Easy to get wrong: `shard_keys` counts the keys the membership was
 * given (`keys()`), not the objects cached; with `uid` sharding it is
 * the number of uids it balances.
 */
export function instrumentSharding(registry: Registry, membership: ShardMembershipSource, options: ShardMetricsOptions = {}): () => void {
  const registers = [registry];
  const identity = membership.identity;
  const names: string[] = [];
  const gauge = (name: string, help: string, labelNames: string[], collect: (g: Gauge<string>, s: ShardStatusView) => void): void => {
    names.push(name);
    new Gauge({
      name,
      help,
      labelNames,
      registers,
      collect() {
        this.reset();
        collect(this, membership.status());
      },
    });
  };
  gauge('dynamic_controller_shard_members', 'With sharding: live members of the shard group as this replica sees them', ['group'], (g, s) =>
    g.set({ group: s.group }, s.members.length),
  );
  gauge('dynamic_controller_shard_ranges_owned', 'With sharding: hash ranges this replica reconciles now', ['group', 'identity'], (g, s) =>
    g.set({ group: s.group, identity }, s.ranges.length),
  );
  gauge(
    'dynamic_controller_shard_ranges_waiting',
    "With sharding: ranges assigned to this replica that it waits for (another member's lease still holds them)",
    ['group', 'identity'],
    (g, s) => g.set({ group: s.group, identity }, s.waiting.length),
  );
  gauge(
    'dynamic_controller_shard_ranges_releasing',
    'With sharding: ranges this replica gave up whose passes are still draining',
    ['group', 'identity'],
    (g, s) => g.set({ group: s.group, identity }, s.releasing.length),
  );
  gauge(
    'dynamic_controller_shard_hash_fraction',
    'With sharding: the share of the 64-bit hash space this replica reconciles now (0 to 1)',
    ['group', 'identity'],
    (g, s) => g.set({ group: s.group, identity }, fraction(s.ranges)),
  );
  gauge(
    'dynamic_controller_shard_keys',
    'With sharding: shard keys (e.g. namespaces) per member of the current assignment',
    ['group', 'member'],
    (g, s) => {
      for (const [member, n] of s.keysPerMember) g.set({ group: s.group, member }, n);
    },
  );
  gauge(
    'dynamic_controller_shard_renewing',
    'With sharding: 1 while this replica renews its member lease within the renew deadline',
    ['group', 'identity'],
    (g, s) => g.set({ group: s.group, identity }, s.renewing ? 1 : 0),
  );
  gauge(
    'dynamic_controller_shard_watching',
    "With sharding: 1 while a watch of the group's leases is open (0: polling every retry period)",
    ['group', 'identity'],
    (g, s) => g.set({ group: s.group, identity }, s.watching ? 1 : 0),
  );
  if (options.mode !== undefined) {
    const mode = options.mode;
    gauge(
      'dynamic_controller_shard_selector_mode',
      'With sharding: 1 for how the informers filter: server (shardSelector) or client',
      ['mode'],
      (g) => g.set({ mode }, 1),
    );
  }
  if (options.cache !== undefined) {
    const cache = options.cache;
    gauge(
      'dynamic_controller_shard_cached_objects',
      "With sharding: objects this replica's informers cache per resource (server-side filtering: about its share; client-side: everything)",
      ['group', 'identity', 'resource'],
      (g, s) => {
        for (const c of cache.cachedObjects()) {
          g.set({ group: s.group, identity, resource: `${c.gvr.group}/${c.gvr.version}/${c.gvr.resource}` }, c.objects.length);
        }
      },
    );
  }
  const transitionsName = 'dynamic_controller_shard_transitions_total';
  names.push(transitionsName);
  const transitions = new Counter({
    name: transitionsName,
    help: 'With sharding: handoff transitions of this replica (acquired, waiting, released, lost)',
    labelNames: ['group', 'identity', 'transition'],
    registers,
  });
  const group = membership.status().group;
  for (const transition of ['acquired', 'waiting', 'released', 'lost']) transitions.inc({ group, identity, transition }, 0);
  const unsubscribe = membership.onTransition((t) => transitions.inc({ group, identity, transition: t.kind }));
  return () => {
    unsubscribe();
    for (const name of names) registry.removeSingleMetric(name);
  };
}

/**
 * A `/readyz` check for a shard member: ready while it renews its member
 * lease, also while it waits for another member's hold on a range (it is
 * synced and starts the range the moment the hold goes); not ready before
 * it joined, or once it could not renew for the renew deadline.
 */
export function shardReadiness(membership: ShardMembershipSource): ReadinessCheck {
  return {
    name: 'shard-membership',
    ready: () => {
      const s = membership.status();
      return s.renewing
        ? { ready: true }
        : { ready: false, reason: `not a live member of shard group ${s.group}: its member lease is not renewed` };
    },
  };
}

function fraction(ranges: readonly ShardRangeView[]): number {
  let total = 0n;
  for (const r of ranges) total += r.end - r.start;
  return Number((total * 1_000_000n) / SPACE) / 1_000_000;
}
