import type { KubeConfigLike } from '@protean/transport';
import { createLogger, realClock, type Clock, type Logger } from '@protean/core';
import { MAX_TIMER_DELAY_MS, wasChecked } from '@protean/core/internal';
import { defaultIdentity } from './defaultIdentity.js';
import { LeaderElectionConfigError } from './LeaderElectionConfigError.js';
import type { LeaseClient } from './LeaseClient.js';
import { KubeLeaseClient } from './KubeLeaseClient.js';

/**
 * Options of a {@link LeaderElector}. The timings default to client-go's
 * (`leaseDurationMs` 15 s, `renewDeadlineMs` 10 s, `retryPeriodMs` 2 s,
 * `jitter` 1.2); every replica of one controller must use the same lease.
 *
 * Easy to get wrong: `leaseDurationMs - renewDeadlineMs` is how long a
 * leader that lost contact has to stop its handlers before another replica
 * may take over; keep it longer than your handlers take to notice an
 * aborted `ctx.signal`.
 */
export interface LeaderElectorOptions {
  /** The Lease's namespace (a DNS label, e.g. the controller's own namespace). */
  readonly namespace: string;
  /** The Lease's name (a DNS subdomain), the same on every replica. */
  readonly leaseName: string;
  /** The cluster and credentials; give this or `client`. */
  readonly kubeConfig?: KubeConfigLike;
  /** Lease calls made some other way (a test's `FakeLeaseClient`); give this or `kubeConfig`. */
  readonly client?: LeaseClient;
  /** This replica's holder identity; default {@link defaultIdentity} (`hostname_pid_random`). */
  readonly identity?: string;
  /** How long a lease stays valid after its holder last renewed it, as other replicas see it; whole seconds. Default 15000. */
  readonly leaseDurationMs?: number;
  /** A leader that could not renew for this long steps down. Default 10000; less than `leaseDurationMs`. */
  readonly renewDeadlineMs?: number;
  /** Time between tries to acquire or renew. Default 2000. */
  readonly retryPeriodMs?: number;
  /** Candidates wait `retryPeriodMs * (1 + random * jitter)` between tries. Default 1.2. */
  readonly jitter?: number;
  /** Timers and durations; default `realClock`. */
  readonly clock?: Clock;
  /** Wall-clock time in epoch ms for the lease's `acquireTime`/`renewTime`; default `Date.now`. */
  readonly wallClock?: () => number;
  /** Uniform in [0, 1), for jitter; default `Math.random`. */
  readonly random?: () => number;
  /** Default `createLogger()`; the elector logs through a child `{ component: 'leader-election' }`. */
  readonly logger?: Logger;
}

/** {@link LeaderElectorOptions} validated, with every default filled in. */
export interface ResolvedLeaderElectorOptions {
  readonly namespace: string;
  readonly leaseName: string;
  readonly client: LeaseClient;
  readonly identity: string;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  readonly jitter: number;
  readonly clock: Clock;
  readonly wallClock: () => number;
  readonly random: () => number;
  readonly logger: Logger;
}

/** client-go's defaults (`leaderelection` as used by controller-runtime and kube-controller-manager). */
export const DEFAULT_LEASE_DURATION_MS = 15_000;
export const DEFAULT_RENEW_DEADLINE_MS = 10_000;
export const DEFAULT_RETRY_PERIOD_MS = 2_000;
export const DEFAULT_JITTER = 1.2;

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Checks `options` where they enter (the {@link LeaderElector} constructor
 * given a caller's own, or `leaderElectionModule` when it is built); throws
 * a {@link LeaderElectionConfigError} naming the first bad field. Every
 * duration becomes a timer's delay, so each is at most core's
 * `MAX_TIMER_DELAY_MS` (2^31 - 1), and so is the longest wait between a
 * candidate's tries, `retryPeriodMs * (1 + jitter)`.
 */
export function checkLeaderElectorOptions(options: LeaderElectorOptions): void {
  if (typeof options !== 'object' || options === null)
    throw new LeaderElectionConfigError('options', `expected an object, got ${String(options)}`);
  const namespace = options.namespace;
  if (typeof namespace !== 'string' || namespace === '')
    throw new LeaderElectionConfigError('namespace', `must be a non-empty string, got ${JSON.stringify(namespace)}`);
  if (namespace.length > 63 || !DNS_LABEL.test(namespace))
    throw new LeaderElectionConfigError(
      'namespace',
      `must be a DNS label (lower case alphanumerics and '-', at most 63), got ${JSON.stringify(namespace)}`,
    );
  const leaseName = options.leaseName;
  if (typeof leaseName !== 'string' || leaseName === '')
    throw new LeaderElectionConfigError('leaseName', `must be a non-empty string, got ${JSON.stringify(leaseName)}`);
  if (leaseName.length > 253 || !DNS_SUBDOMAIN.test(leaseName))
    throw new LeaderElectionConfigError(
      'leaseName',
      `must be a DNS subdomain (lower case alphanumerics, '-' and '.', at most 253), got ${JSON.stringify(leaseName)}`,
    );
  if ((options.kubeConfig === undefined) === (options.client === undefined)) {
    throw new LeaderElectionConfigError('kubeConfig', 'give exactly one of kubeConfig and client');
  }
  // Unset (or null), the identity is defaultIdentity(), which is always valid.
  const identity: unknown = options.identity;
  if (identity !== undefined && identity !== null && (typeof identity !== 'string' || identity.trim() === ''))
    throw new LeaderElectionConfigError('identity', `must be a non-empty string, got ${JSON.stringify(identity)}`);

  const leaseDurationMs = options.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS;
  const renewDeadlineMs = options.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS;
  const retryPeriodMs = options.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS;
  const jitter = options.jitter ?? DEFAULT_JITTER;
  duration('leaseDurationMs', leaseDurationMs);
  duration('renewDeadlineMs', renewDeadlineMs);
  duration('retryPeriodMs', retryPeriodMs);
  if (!Number.isInteger(leaseDurationMs / 1000)) {
    throw new LeaderElectionConfigError(
      'leaseDurationMs',
      `must be a whole number of seconds (the Lease stores leaseDurationSeconds), got ${leaseDurationMs}`,
    );
  }
  if (typeof jitter !== 'number' || !Number.isFinite(jitter) || jitter < 0)
    throw new LeaderElectionConfigError('jitter', `must be a finite number >= 0, got ${String(jitter)}`);
  if (renewDeadlineMs >= leaseDurationMs) {
    throw new LeaderElectionConfigError(
      'renewDeadlineMs',
      `must be less than leaseDurationMs (${leaseDurationMs}), got ${renewDeadlineMs}: a leader must step down before its lease can expire`,
    );
  }
  // client-go asks renewDeadline > jitter * retryPeriod; and a leader renewing every retryPeriod must get a retry before its deadline.
  const minimum = Math.max(retryPeriodMs, jitter * retryPeriodMs);
  if (renewDeadlineMs <= minimum) {
    throw new LeaderElectionConfigError(
      'renewDeadlineMs',
      `must be greater than retryPeriodMs and jitter * retryPeriodMs (${minimum}), got ${renewDeadlineMs}`,
    );
  }
  const longestWaitMs = retryPeriodMs * (1 + jitter);
  if (longestWaitMs > MAX_TIMER_DELAY_MS) {
    throw new LeaderElectionConfigError(
      'retryPeriodMs',
      `retryPeriodMs * (1 + jitter), the longest wait between a candidate's tries, must be at most ${MAX_TIMER_DELAY_MS} ` +
        `(the longest delay Node's timers honour), got ${retryPeriodMs} * (1 + ${jitter}) = ${longestWaitMs}`,
    );
  }
}

/**
 * Fills in the defaults of `options`, checking them first
 * ({@link checkLeaderElectorOptions}) unless they were checked where they
 * entered (`leaderElectionModule`'s); throws a
 * {@link LeaderElectionConfigError} naming the first bad field.
 */
export function resolveLeaderElectorOptions(options: LeaderElectorOptions): ResolvedLeaderElectorOptions {
  if (!wasChecked(options)) checkLeaderElectorOptions(options);
  return {
    namespace: options.namespace,
    leaseName: options.leaseName,
    client: options.client ?? new KubeLeaseClient(options.kubeConfig as KubeConfigLike),
    identity: options.identity ?? defaultIdentity(),
    leaseDurationMs: options.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS,
    renewDeadlineMs: options.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS,
    retryPeriodMs: options.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS,
    jitter: options.jitter ?? DEFAULT_JITTER,
    clock: options.clock ?? realClock,
    // eslint-disable-next-line no-restricted-properties -- the wall clock's default, injected like the clock
    wallClock: options.wallClock ?? Date.now,
    random: options.random ?? Math.random,
    logger: options.logger ?? createLogger(),
  };
}

function duration(field: string, value: unknown): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new LeaderElectionConfigError(field, `must be a finite number of milliseconds > 0, got ${String(value)}`);
  }
  if (value > MAX_TIMER_DELAY_MS) {
    throw new LeaderElectionConfigError(
      field,
      `must be at most ${MAX_TIMER_DELAY_MS} milliseconds (the longest delay Node's timers honour), got ${value}`,
    );
  }
}
