import { realClock, silentLogger, type Clock, type Logger, type TimerHandle } from '@protean/core';
import type { KubeConnectionPool } from '@protean/transport';

/** Tuning of a {@link ServerReadiness}. */
export interface ServerReadinessOptions {
  /** Pause between two probes of `/readyz` while something waits. Default 50. */
  readonly probeIntervalMs?: number;
  /** A probe not answered this long counts as "not ready". Default 1 000. */
  readonly probeTimeoutMs?: number;
  /** Least time between two early ends of the waits by a ready answer at the first probe. Default 5 000. */
  readonly quietMs?: number;
}

/**
 * Tells informers that lost the API server (a network failure: connection
 * refused, reset, timed out) the moment it is back, so they list or watch
 * again then instead of at the end of their backoff.
 *
 * While something waits, one probe of `GET /readyz` (readable by any
 * client, authenticated or not, by kube-apiserver's default RBAC) every
 * `probeIntervalMs` tells all of them at once: one request per interval
 * whatever the number of informers, and none while nothing waits. A wait
 * ends on a ready answer after a failed one. A ready answer at the first
 * probe (the server came back between the informer's failure and the
 * probe, or was never down) ends the waits too, but at most once per
 * `quietMs` (5 s): a server that fails requests while answering `/readyz`
 * gets one early retry per 5 s, and the informers' backoff otherwise.
 *
 * Shared by every list/watch of a `KubernetesInformerSource`.
 */
export class ServerReadiness {
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly probeIntervalMs: number;
  private readonly probeTimeoutMs: number;
  private readonly waiters = new Set<() => void>();
  private timer: TimerHandle | undefined;
  private probing = false;
  /** The probes since the last ready answer saw the server not ready. */
  private down = false;
  /** When a ready answer at the first probe last ended the waits. */
  private lastReadyAtOnceMs = Number.NEGATIVE_INFINITY;
  private readonly quietMs: number;

  constructor(
    private readonly pool: KubeConnectionPool,
    options: ServerReadinessOptions & { readonly clock?: Clock; readonly logger?: Logger } = {},
  ) {
    this.clock = options.clock ?? realClock;
    this.log = (options.logger ?? silentLogger()).child({ component: 'server-readiness' });
    this.probeIntervalMs = options.probeIntervalMs ?? 50;
    this.probeTimeoutMs = options.probeTimeoutMs ?? 1000;
    this.quietMs = options.quietMs ?? 5000;
  }

  /** Resolves once the API server answers `/readyz` after being seen down, or when `signal` aborts; never rejects. */
  whenBack(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      const done = (): void => {
        this.waiters.delete(done);
        signal.removeEventListener('abort', done);
        if (this.waiters.size === 0) this.stop();
        resolve();
      };
      this.waiters.add(done);
      signal.addEventListener('abort', done, { once: true });
      if (!this.probing) {
        this.probing = true;
        this.down = false;
        this.schedule(0);
      }
    });
  }

  private stop(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.probing = false;
  }

  private schedule(delayMs: number): void {
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      void this.probe();
    }, delayMs);
  }

  private async probe(): Promise<void> {
    let ready: boolean;
    try {
      const res = await this.pool.send({
        method: 'GET',
        path: '/readyz',
        headers: { accept: 'text/plain' },
        signal: AbortSignal.timeout(this.probeTimeoutMs),
      });
      ready = res.status === 200;
    } catch {
      ready = false;
    }
    if (!this.probing) return;
    if (!ready) {
      this.down = true;
      this.schedule(this.probeIntervalMs);
      return;
    }
    const now = this.clock.now();
    const atOnce = !this.down;
    if (!atOnce || now - this.lastReadyAtOnceMs >= this.quietMs) {
      if (atOnce) this.lastReadyAtOnceMs = now;
      this.log.info({ waiting: this.waiters.size }, 'the API server is ready again; its informers list and watch now');
      for (const done of [...this.waiters]) done();
    }
    this.stop();
  }
}
