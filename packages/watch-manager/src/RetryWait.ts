import type { Clock, KindUnavailableError, TimerHandle } from '@protean/core';
import type { InformerSettings } from './KubernetesInformerOptions.js';
import type { KubernetesRequestError } from './KubernetesRequestError.js';

/** What can end a wait early: resolves when the wait may end (and is told to stop listening by its signal). */
export type WakeOn = (signal: AbortSignal) => Promise<void>;

/**
 * The wait of one `KubernetesListWatch` before its next attempt: the
 * backoff's timer, and what may end it sooner where the source shares the
 * component that tells: the kind available again after a refusal
 * (`KindAvailability`), the API server ready again after a network
 * failure (`ServerReadiness`).
 *
 * Easy to get wrong: one wait at a time. A second {@link sleep} before
 * the first ended takes its place, and the first never resolves.
 */
export class RetryWait {
  private timer: TimerHandle | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly settings: Pick<InformerSettings, 'kindAvailability' | 'serverReadiness'>,
  ) {}

  /** Ends a wait once the API server answers ready again (`/readyz`); undefined without a `ServerReadiness`. */
  serverBack(): WakeOn | undefined {
    const readiness = this.settings.serverReadiness;
    return readiness === undefined ? undefined : (signal) => readiness.whenBack(signal);
  }

  /**
   * What can end the backoff after `failure` early, if anything: the kind
   * available again (a refusal), or the API server ready again (a network
   * failure); each only where the source shares the component that tells.
   */
  wakeFor(failure: KubernetesRequestError, refusal: KindUnavailableError | undefined): WakeOn | undefined {
    const { kindAvailability } = this.settings;
    const back = this.serverBack();
    if (refusal !== undefined) {
      if (kindAvailability === undefined) return back;
      // A kube-apiserver starting up refuses (its RBAC not loaded yet) before it is ready: ready again ends that too.
      return (signal) => Promise.race([kindAvailability.whenAvailable(refusal, signal), ...(back === undefined ? [] : [back(signal)])]);
    }
    // Unreachable, or answering 5xx as a starting kube-apiserver does ("the request has been made before all known
    // HTTP paths have been installed"): back once /readyz says so. (A 429's Retry-After is the server's word: kept.)
    const unreachable = failure.status === undefined ? failure.reason !== 'InactivityTimeout' : failure.status >= 500;
    return unreachable ? back : undefined;
  }

  /** Sleeps `ms`, or until `wakeOn` resolves, or until {@link stop}. */
  sleep(ms: number, wakeOn?: WakeOn): Promise<void> {
    return new Promise((resolve) => {
      const wait = wakeOn === undefined ? undefined : new AbortController();
      const done = (): void => {
        if (this.wake !== done) return;
        if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
        this.timer = undefined;
        this.wake = undefined;
        wait?.abort();
        resolve();
      };
      this.wake = done;
      this.timer = this.clock.setTimeout(done, ms);
      if (wait !== undefined) void wakeOn!(wait.signal).then(done);
    });
  }

  /** Ends the wait in progress, if any, and leaves no timer. */
  stop(): void {
    this.wake?.();
  }
}
