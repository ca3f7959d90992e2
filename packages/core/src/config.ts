import { markChecked, wasChecked } from './checkedSettings.js';
import { MAX_TIMER_DELAY_MS } from './clock.js';

/**
 * Settings of a DynamicController (seed: `Config`). Durations are
 * milliseconds; those that become a timer's delay (`resyncPeriodMs` and the
 * timeouts) are at most 2 147 483 647 (2^31 - 1), the longest delay Node's
 * timers honour.
 */
export interface Config {
  /** Number of handlers running concurrently. */
  readonly workers: number;
  /** How often informers replay their cache as updates, without contacting the server; 0 disables resync. */
  readonly resyncPeriodMs: number;
  /** Failed attempts after which an item is dropped (with an error log). */
  readonly queueMaxRetries: number;
  /** First retry delay of the per-item exponential backoff. */
  readonly minRetryDelayMs: number;
  /** Cap of the per-item exponential backoff; finite. */
  readonly maxRetryDelayMs: number;
  /** Items per second of the global token bucket. */
  readonly rateLimit: number;
  /** Token bucket size: items let through at once before `rateLimit` applies. */
  readonly burstLimit: number;
  /** How long shutdown waits for in-flight handlers; 0 waits without limit. */
  readonly queueShutdownTimeoutMs: number;
  /**
   * How long one handler pass may run: its `ctx.signal` aborts after this
   * long (with a `ReconcileTimeoutError`) and the pass counts as failed,
   * retried with backoff. 0 sets no limit. Default 5 minutes.
   *
   * Easy to get wrong: the limit works through `ctx.signal`; a handler that
   * ignores the signal keeps its worker until it returns.
   */
  readonly reconcileTimeoutMs: number;
  /**
   * How long a cached read (`ctx.get`, `ctx.list`) of an object the
   * handler wrote waits for the object cache to reach that write before it
   * reads the object from the API server instead (counted as a fallback).
   * Default 2 000.
   */
  readonly readYourWritesTimeoutMs: number;
}

/** The seed system's defaults, plus a 5-minute `reconcileTimeoutMs` (the seed has no per-reconcile limit). */
export const defaultConfig: Config = Object.freeze({
  workers: 1,
  resyncPeriodMs: 10 * 60 * 60 * 1000,
  queueMaxRetries: 20,
  minRetryDelayMs: 200,
  maxRetryDelayMs: 1000 * 1000,
  rateLimit: 10,
  burstLimit: 100,
  queueShutdownTimeoutMs: 60 * 1000,
  reconcileTimeoutMs: 5 * 60 * 1000,
  readYourWritesTimeoutMs: 2000,
});

/** Thrown when a {@link Config} field is out of range; names the field and value. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Fills unset fields from {@link defaultConfig} and checks every value, so a
 * typo (`workers: 0`, a negative delay, `NaN`, a resync period past the
 * longest timer) fails at start-up instead of producing a controller that
 * silently does nothing, or spins. This is where settings enter: a config it
 * returned (frozen) is returned as is when given again, unchecked, and the
 * parts built from it take its values as they are (the queue's rate limiter
 * included: the controller hands it the limits as checked here).
 */
export function resolveConfig(partial: Partial<Config> = {}): Config {
  if (wasChecked(partial)) return partial as Config;
  const config: Config = { ...defaultConfig, ...partial };
  const check = (field: keyof Config, ok: (v: number) => boolean, rule: string): void => {
    const value = config[field];
    if (typeof value !== 'number' || Number.isNaN(value) || !ok(value)) {
      throw new ConfigError(`invalid config ${field}=${String(value)}: ${rule}`);
    }
  };
  const int = Number.isInteger;
  // A delay handed to a timer: past MAX_TIMER_DELAY_MS, Node fires it after 1 ms.
  const timer = (v: number): boolean => v >= 0 && v <= MAX_TIMER_DELAY_MS;
  const timerRule = `must be a number from 0 to ${MAX_TIMER_DELAY_MS} (the longest delay Node's timers honour)`;
  check('workers', (v) => int(v) && v >= 1, 'must be an integer >= 1');
  check('resyncPeriodMs', timer, `${timerRule}; 0 disables resync`);
  check('queueMaxRetries', (v) => int(v) && v >= 0, 'must be an integer >= 0');
  // The queue's rate limiter takes these four as checked here, so its own rules are the ones that count:
  // finite delays (the queue delays by them), a positive rate (Infinity: no limit), a whole burst.
  check('minRetryDelayMs', (v) => v >= 0 && Number.isFinite(v), 'must be a finite number >= 0');
  check('maxRetryDelayMs', (v) => v >= config.minRetryDelayMs && Number.isFinite(v), 'must be a finite number >= minRetryDelayMs');
  check('rateLimit', (v) => v > 0, 'must be > 0');
  check('burstLimit', (v) => int(v) && v >= 1, 'must be an integer >= 1');
  check('queueShutdownTimeoutMs', timer, `${timerRule}; 0 waits without limit`);
  check('readYourWritesTimeoutMs', timer, timerRule);
  check('reconcileTimeoutMs', timer, `${timerRule}; 0 sets no limit`);
  return markChecked(Object.freeze(config));
}
