import {
  errorMessage,
  gvrKey,
  KindNotServedError,
  realClock,
  silentLogger,
  WatchForbiddenError,
  type Clock,
  type DeletedFinalStateUnknown,
  type GroupVersionResource,
  type KindUnavailableError,
  type Logger,
  type PartialObjectMetadata,
  type TimerHandle,
} from '@protean/core';
import type { KubeConnectionPool } from '@protean/transport';
import { Informer } from './Informer.js';
import { resolveInformerSettings, type KubernetesInformerOptions } from './KubernetesInformerOptions.js';
import { KubernetesListWatch } from './KubernetesListWatch.js';
import { reviewAccess } from './reviewAccess.js';

/** The CRDs, watched (metadata only) while a kind waits to be served. */
const CRD_GVR: GroupVersionResource = Object.freeze({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  resource: 'customresourcedefinitions',
});

/** Tuning of a {@link KindAvailability}; every field has a production default. */
export interface KindAvailabilityOptions {
  /** How often a refused verb is asked about (`SelfSubjectAccessReview`) while something waits for it. Default 1 000. */
  readonly probeIntervalMs?: number;
  /** Most verbs asked about at once; a refusal beyond them waits `fallbackMs`. Default 32. */
  readonly maxProbes?: number;
  /** Longest wait when nothing can tell (a kind no CRD serves, CRDs not watchable, probes refused). Default 5 000. */
  readonly fallbackMs?: number;
  /** Longest wait for a CRD-backed kind while the CRD watch works (a net under a missed event). Default 60 000. */
  readonly crdFallbackMs?: number;
  /** How long the CRD watch runs on after the last wait ended, and how soon after a CRD changed a kind is tried again. Default 3 000. */
  readonly graceMs?: number;
}

interface Waiter {
  readonly resolve: () => void;
}

/** A refused verb asked about on a cadence while something waits for it. */
interface Probe {
  readonly key: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly waiters: Set<Waiter>;
  timer: TimerHandle | undefined;
  /** Answers are unusable (the review API refused or failed): its waiters wait `fallbackMs`. */
  broken: boolean;
}

/**
 * When a kind the API server refused may be available again, as an
 * informer source's `whenAvailable`: learnt from the cluster, not from a
 * blind backoff.
 *
 * - Not served (404): a CRD named `<resource>.<group>` being created,
 *   changed (Established, NamesAccepted, a new version) or deleted ends
 *   the wait. The CRDs are watched, metadata only, by one informer that
 *   runs while something waits (and `graceMs` after). A kind with no CRD
 *   (the core group), or a cluster whose CRDs cannot be watched, waits
 *   `fallbackMs`.
 * - Forbidden (403): a `SelfSubjectAccessReview` of the refused verb,
 *   group, resource and namespace every `probeIntervalMs`, one per refusal
 *   however many wait on it, at most `maxProbes` at once; the wait ends
 *   when the review allows it. A refusal allowed by its review less than
 *   `graceMs` ago (the review and the server disagree) waits `fallbackMs`,
 *   so the two cannot make a busy loop.
 *
 * Shared by every list/watch of a `KubernetesInformerSource`.
 */
export class KindAvailability {
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly probeIntervalMs: number;
  private readonly maxProbes: number;
  private readonly fallbackMs: number;
  private readonly crdFallbackMs: number;
  private readonly graceMs: number;
  /** CRD name (`resource.group`) -> who waits for it. */
  private readonly notServed = new Map<string, Set<Waiter>>();
  /** CRD name -> when it last changed. */
  private readonly changedAt = new Map<string, number>();
  private readonly probes = new Map<string, Probe>();
  /** Probe key -> when its review last allowed it. */
  private readonly allowedAt = new Map<string, number>();
  private crds: { readonly abort: AbortController } | undefined;
  private crdsRefused = false;
  private crdStopTimer: TimerHandle | undefined;
  /** Where the reviews go; undefined (`connection: 'per-request'`): no reviews, refusals wait `fallbackMs`. */
  private readonly pool: KubeConnectionPool | undefined;

  constructor(
    /** The source's options: the CRD watch and the reviews use its KubeConfig, pool, clock and logger (never its namespace or shard selector). */
    private readonly source: KubernetesInformerOptions,
    options: KindAvailabilityOptions = {},
  ) {
    this.pool = resolveInformerSettings(source).connectionPool;
    this.clock = source.clock ?? realClock;
    this.log = (source.logger ?? silentLogger()).child({ component: 'kind-availability' });
    this.probeIntervalMs = options.probeIntervalMs ?? 1000;
    this.maxProbes = options.maxProbes ?? 32;
    this.fallbackMs = options.fallbackMs ?? 5000;
    this.crdFallbackMs = options.crdFallbackMs ?? 60_000;
    this.graceMs = options.graceMs ?? 3000;
  }

  /** Resolves once the kind `refusal` refused may be available again, or when `signal` aborts; never rejects. */
  whenAvailable(refusal: KindUnavailableError, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      const wait: { timer?: TimerHandle } = {};
      let leave = (_aborted: boolean): void => {};
      const end = (aborted: boolean): void => {
        if (wait.timer !== undefined) this.clock.clearTimeout(wait.timer);
        signal.removeEventListener('abort', onAbort);
        leave(aborted);
        resolve();
      };
      const onAbort = (): void => end(true);
      const waiter: Waiter = { resolve: () => end(false) };
      signal.addEventListener('abort', onAbort, { once: true });
      const waitMs =
        refusal instanceof WatchForbiddenError
          ? this.waitForGrant(refusal, waiter, (f) => (leave = f))
          : this.waitForCrd(refusal, waiter, (f) => (leave = f));
      wait.timer = this.clock.setTimeout(waiter.resolve, waitMs);
    });
  }

  /** Joins the waiters of the kind's CRD; returns the longest wait. */
  private waitForCrd(refusal: KindUnavailableError, waiter: Waiter, onLeave: (leave: (aborted: boolean) => void) => void): number {
    const { group, resource } = refusal.gvr;
    // No CRD can serve the core group.
    if (group === '' || !(refusal instanceof KindNotServedError)) return this.fallbackMs;
    const name = `${resource}.${group}`;
    const changed = this.changedAt.get(name);
    // Just changed: the server may serve it a moment after the event, so try again soon, once per change.
    if (changed !== undefined && this.clock.now() - changed < this.graceMs) {
      this.changedAt.delete(name);
      return Math.min(300, this.graceMs);
    }
    let waiters = this.notServed.get(name);
    if (waiters === undefined) this.notServed.set(name, (waiters = new Set()));
    waiters.add(waiter);
    onLeave((aborted) => {
      waiters.delete(waiter);
      if (waiters.size === 0 && this.notServed.get(name) === waiters) this.notServed.delete(name);
      // Given up (a shutdown, a released watch): no retry follows, so no grace either.
      if (this.notServed.size === 0) this.scheduleCrdStop(aborted ? 0 : this.graceMs);
    });
    this.startCrds();
    return this.crdsRefused ? this.fallbackMs : this.crdFallbackMs;
  }

  /** Joins (or starts) the probe of the refused verb; returns the longest wait. */
  private waitForGrant(refusal: WatchForbiddenError, waiter: Waiter, onLeave: (leave: (aborted: boolean) => void) => void): number {
    const { group, resource } = refusal.gvr;
    const attributes: Record<string, string> = { verb: refusal.verb, group, resource };
    if (refusal.namespace !== undefined) attributes['namespace'] = refusal.namespace;
    const key = `${refusal.verb} ${gvrKey(refusal.gvr)} ${refusal.namespace ?? ''}`;
    const allowed = this.allowedAt.get(key);
    if (allowed !== undefined && this.clock.now() - allowed < this.graceMs) return this.fallbackMs;
    let probe = this.probes.get(key);
    if (probe === undefined) {
      if (this.probes.size >= this.maxProbes || this.pool === undefined) return this.fallbackMs;
      probe = { key, attributes, waiters: new Set(), timer: undefined, broken: false };
      this.probes.set(key, probe);
      this.scheduleProbe(probe, 0);
    }
    const joined = probe;
    joined.waiters.add(waiter);
    onLeave(() => {
      joined.waiters.delete(waiter);
      if (joined.waiters.size !== 0) return;
      if (joined.timer !== undefined) this.clock.clearTimeout(joined.timer);
      joined.timer = undefined;
      if (this.probes.get(key) === joined) this.probes.delete(key);
    });
    return joined.broken ? this.fallbackMs : this.crdFallbackMs;
  }

  private scheduleProbe(probe: Probe, delayMs: number): void {
    probe.timer = this.clock.setTimeout(() => {
      probe.timer = undefined;
      void this.ask(probe);
    }, delayMs);
  }

  private async ask(probe: Probe): Promise<void> {
    if (this.probes.get(probe.key) !== probe) return;
    let allowed: boolean | undefined;
    try {
      allowed = await reviewAccess(this.pool!, probe.attributes);
    } catch (err) {
      allowed = undefined;
      if (!probe.broken)
        this.log.info(
          { err: errorMessage(err), access: probe.key },
          'cannot ask the API server whether access was granted; retrying on a timer',
        );
    }
    if (this.probes.get(probe.key) !== probe) return;
    // Answered again (a server that was starting): its answers count again.
    if (allowed !== undefined) probe.broken = false;
    if (allowed === true) {
      this.probes.delete(probe.key);
      this.allowedAt.set(probe.key, this.clock.now());
      this.log.info({ access: probe.key }, 'access granted; trying the kind again');
      for (const w of [...probe.waiters]) w.resolve();
      return;
    }
    if (allowed === undefined && !probe.broken) {
      probe.broken = true;
      for (const w of [...probe.waiters]) w.resolve(); // they wait again, on the fallback
      return;
    }
    this.scheduleProbe(probe, probe.broken ? this.fallbackMs : this.probeIntervalMs);
  }

  private startCrds(): void {
    if (this.crdStopTimer !== undefined) this.clock.clearTimeout(this.crdStopTimer);
    this.crdStopTimer = undefined;
    if (this.crds !== undefined) return;
    const { namespace: _ns, shardSelector: _shard, kindAvailability: _self, ...options } = this.source;
    const listWatch = new KubernetesListWatch(CRD_GVR, { ...options, streamingList: 'never' });
    const changed = (obj: PartialObjectMetadata | DeletedFinalStateUnknown): void => {
      const name = 'metadata' in obj ? obj.metadata.name : obj.obj?.metadata.name;
      if (name !== undefined) this.crdChanged(name);
    };
    const informer = new Informer(
      listWatch,
      {
        onAdd: changed,
        onUpdate: (_old, obj) => changed(obj),
        onDelete: changed,
        onError: (err) => this.crdsFailed(err),
        onSynced: () => (this.crdsRefused = false),
      },
      { clock: this.clock, logger: this.log },
    );
    const abort = new AbortController();
    this.crds = { abort };
    informer.run(abort.signal);
    this.log.debug('watching CustomResourceDefinitions while kinds wait to be served');
  }

  private crdChanged(name: string): void {
    this.changedAt.set(name, this.clock.now());
    const waiters = this.notServed.get(name);
    if (waiters === undefined) return;
    for (const w of [...waiters]) w.resolve();
  }

  private crdsFailed(err: Error): void {
    const status = (err as { status?: unknown }).status;
    if ((status !== 403 && status !== 404) || this.crdsRefused) return;
    this.crdsRefused = true;
    this.log.info(
      { err: err.message },
      `cannot watch CustomResourceDefinitions; kinds that are not served are tried again every ${this.fallbackMs} ms (grant list and watch on customresourcedefinitions.apiextensions.k8s.io to hear of them at once)`,
    );
    for (const waiters of this.notServed.values()) for (const w of [...waiters]) w.resolve();
  }

  private scheduleCrdStop(afterMs: number): void {
    if (this.crds === undefined) return;
    if (afterMs === 0) {
      if (this.crdStopTimer !== undefined) this.clock.clearTimeout(this.crdStopTimer);
      this.crdStopTimer = undefined;
      this.stopCrds();
      return;
    }
    if (this.crdStopTimer !== undefined) return;
    const timer = this.clock.setTimeout(() => {
      this.crdStopTimer = undefined;
      if (this.notServed.size === 0) this.stopCrds();
    }, afterMs);
    (timer as { unref?: () => void }).unref?.();
    this.crdStopTimer = timer;
  }

  private stopCrds(): void {
    this.crds?.abort.abort();
    this.crds = undefined;
    this.changedAt.clear();
  }
}
