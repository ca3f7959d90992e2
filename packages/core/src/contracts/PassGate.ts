import type { Handler } from '../handler.js';
import type { Fencing } from './Validity.js';

/**
 * Decides, from outside the controller, which passes run: a shard
 * membership admits only the instances of the ranges this replica owns
 * (`shardingModule` of `@protean/sharding` binds one to
 * `TOKENS.passGate`). The controller wraps every handler it registers with
 * {@link PassGate.wrap}, runs {@link PassGate.run} from `start(signal)`
 * until it settles, and refuses a gate without {@link PassGate.fencing}.
 *
 * Easy to get wrong: `fencing` is the lease's validity the gate checks
 * before each pass and ties to each pass's `ctx.signal`, or `'none'` said
 * on purpose; a gate that admits passes for a lease without checking it
 * lets a replica woken from a freeze write over its successor.
 */
export interface PassGate {
  /** The lease the gate's passes are fenced by, or `'none'`. */
  readonly fencing: Fencing;
  /** `handler`, run only for the instances the gate admits now. */
  wrap(handler: Handler): Handler;
  /** Takes part (a membership: join, renew, hand ranges over) until `signal` aborts and the gate's passes drained. */
  run(signal: AbortSignal): Promise<void>;
}
