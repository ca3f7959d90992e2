import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Leadership, PassGate, WatchCoordinatorFactory, WatchManagerFactory, WorkQueueFactory } from '../contracts/index.js';
import type { InformerSource } from '../informer.js';
import type { Logger } from '../logger.js';
import type { ControllerObserver } from './ControllerObserver.js';

/**
 * Everything `DynamicController.create` needs when no container is used.
 * The four layers are required: core ships no implementation of them
 * (`@protean/queue`, `@protean/watch-manager` and `@protean/coordinator` do).
 */
export interface DynamicControllerOptions {
  /** Unset fields come from `defaultConfig`; every value is validated. */
  readonly config?: Partial<Config>;
  /** Defaults to `createLogger()`. */
  readonly logger?: Logger;
  /** Defaults to `realClock`; used for the shutdown timeout and handler durations. */
  readonly clock?: Clock;
  readonly informerSource: InformerSource;
  readonly workQueueFactory: WorkQueueFactory;
  readonly watchManagerFactory: WatchManagerFactory;
  readonly watchCoordinatorFactory: WatchCoordinatorFactory;
  /** Defaults to `noopControllerObserver`. */
  readonly observer?: ControllerObserver;
  /** When set, the workers run only while this replica leads (warm standby otherwise); unset: always. */
  readonly leadership?: Leadership;
  /** When set, every handler registered is wrapped by the gate (a shard membership's), which runs from `start`. */
  readonly passGate?: PassGate;
}
