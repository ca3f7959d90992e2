import type { HashRange } from './HashRange.js';
import type { ShardGate } from './ShardGate.js';
import type { ShardChange, ShardChangeListener } from './ShardMembership.js';

/**
 * The listener of {@link ShardMembership.run} for a replica made of a
 * {@link ShardGate} and (optionally) a `ShardedInformerSource`: each change
 * first goes to the gate (stop taking items of lost ranges, abort and
 * drain their passes), then, once drained, to the source (objects that
 * left the share delivered as deletes, those that entered as adds). The
 * promise settles once the gate drained, as the membership requires.
 *
 * Easy to get wrong: a change can arrive while the previous one still
 * drains (a renew failure stops everything at once); a superseded change
 * then does not touch the source, so the latest ranges stay in force.
 */
export function applyShardChange(parts: {
  readonly gate: ShardGate;
  readonly source?: { setRanges(ranges: readonly HashRange[]): void };
}): ShardChangeListener {
  let latest = 0;
  return async (change: ShardChange): Promise<void> => {
    const mine = ++latest;
    await parts.gate.setRanges(change.ranges);
    if (mine === latest) parts.source?.setRanges(change.ranges);
  };
}
