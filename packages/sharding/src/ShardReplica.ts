import type { Fencing, GroupVersionResource, Handler, NamespacedName, PassGate } from '@protean/core';
import { markChecked, wasChecked } from '@protean/core/internal';
import { applyShardChange } from './applyShardChange.js';
import type { ShardKey } from './HashRange.js';
import type { ShardedInformerSource } from './ShardedInformerSource.js';
import { ShardGate } from './ShardGate.js';
import { ShardMembership, type ShardChange } from './ShardMembership.js';
import type { ShardMembershipOptions } from './ShardMembershipOptions.js';

/** Options of a {@link ShardReplica}: its membership's, its source, and the shard key. */
export interface ShardReplicaOptions extends ShardMembershipOptions {
  /** The replica's informer source (e.g. `kubeShardInformerSource`); its ranges follow the membership. */
  readonly source: ShardedInformerSource;
  /** With `key: 'uid'` (the source's key): the uid of an instance, `undefined` when unknown. */
  readonly uidOf?: (gvr: GroupVersionResource, item: NamespacedName) => string | undefined;
  /** Told of every change once the gate drained and the source took it (logs, audits); what it throws is ignored. */
  readonly onShareChange?: (change: ShardChange) => void;
}

/**
 * One replica of a shard group, whole: its {@link ShardMembership}, a
 * {@link ShardGate} fenced by the membership's validity, and the sharded
 * informer source, joined by {@link applyShardChange}. It is the
 * controller's `PassGate` (`TOKENS.passGate`, bound by `shardingModule`):
 * the controller wraps every handler it registers with the gate and runs
 * the membership from `start(signal)`, so neither the fence nor the wrap
 * can be left out.
 */
export class ShardReplica implements PassGate {
  readonly key: ShardKey;
  readonly source: ShardedInformerSource;
  readonly membership: ShardMembership;
  readonly gate: ShardGate;
  private readonly onShareChange: ((change: ShardChange) => void) | undefined;

  constructor(options: ShardReplicaOptions) {
    const { source, uidOf, onShareChange, ...membership } = options;
    this.onShareChange = onShareChange;
    this.key = source.key;
    this.source = source;
    // What was checked where it entered (shardingModule) stays checked without the replica's own fields.
    this.membership = new ShardMembership(wasChecked(options) ? markChecked(membership) : membership);
    this.gate = new ShardGate({
      key: source.key,
      validity: this.membership.validity,
      ranges: source.ranges(),
      ...(uidOf === undefined ? {} : { uidOf }),
    });
  }

  /** The membership's validity. */
  get fencing(): Fencing {
    return this.membership.validity;
  }

  wrap(handler: Handler): Handler {
    return this.gate.wrap(handler);
  }

  /** Joins the group, renews and hands ranges over until `signal` aborts, then gives every range up and leaves. */
  run(signal: AbortSignal): Promise<void> {
    const apply = applyShardChange({ gate: this.gate, source: this.source });
    const told = this.onShareChange;
    return this.membership.run(
      signal,
      told === undefined
        ? apply
        : async (change) => {
            await apply(change);
            try {
              told(change);
            } catch {
              // An observer's failure is not the membership's.
            }
          },
    );
  }
}
