/**
 * Thrown when something that admits passes for a lease (a leader term, a
 * shard gate) is built or run without the lease's validity: without it, a
 * replica woken from a freeze past its lease writes over its successor.
 * Give the validity (`membership.validity`, the term's), or say
 * `fencing: 'none'` to run without a fence on purpose (logged once at
 * start).
 */
export class FencingRequiredError extends Error {
  override readonly name = 'FencingRequiredError';
  /** What was built or run without a fence, e.g. `ShardGate`. */
  readonly component: string;

  constructor(component: string, fix: string) {
    super(
      `${component} needs the validity of the lease it acts under (${fix}), or fencing: 'none' to run without a fence on purpose; ` +
        'without one, a replica woken from a freeze past its lease writes over the replica that took its place',
    );
    this.component = component;
  }
}
