import {
  gvrKey,
  type ControllerObserver,
  type EventType,
  type GroupVersionResource,
  type WatchEvent,
  type ReconcileOutcome,
} from '@protean/core';
import { unfencedWriteCount, apiWarningCount } from '@protean/core/internal';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { InformerStatus } from './InformerHealthRules.js';

const secondsBuckets = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 20, 25, 30, 45, 60, 120];

/** Sources the gauges read at scrape time (set once the controller exists). */
export interface ControllerGaugeSources {
  queueLength(): number;
  registeredGvrCount(): number;
  activeWatchCount(): number;
  instanceWatchCount(): number;
  watchRequestCount(): { scalar: number; collection: number };
  /** The running informers with the health rules applied (the `dynamic_controller_informer_*` health gauges). */
  informers?(): readonly InformerStatus[];
}

/**
 * The seed system's `dynamic_controller_*` metrics. Every GVR label is
 * `gvrKey(gvr)` (`group/version/resource`, core group empty), the same
 * format everywhere. Counters are fed by the {@link ControllerObserver}
 * hooks and by the instrumented watch manager and coordinator; gauges are read from
 * the live controller on each scrape, so they can never drift.
 */
export class ControllerMetrics implements ControllerObserver {
  private readonly reconcileTotal: Counter<'gvr'>;
  private readonly reconcileDuration: Histogram<'gvr'>;
  private readonly requeueTotal: Counter<'gvr' | 'type'>;
  private readonly handlerErrors: Counter<'gvr'>;
  private readonly handlerExceptions: Counter<'gvr'>;
  private readonly droppedTotal: Counter<'gvr'>;
  private readonly cancelledTotal: Counter<'gvr'>;
  private readonly cacheReadFallbacks: Counter<'gvr'>;
  private readonly parentEvents: Counter<'gvr' | 'event_type'>;
  private readonly informerEvents: Counter<'gvr' | 'event_type'>;
  private readonly informerSyncDuration: Histogram<'gvr'>;
  private readonly routeTotal: Counter<'gvr'>;
  private readonly routeMatchTotal: Counter<'gvr'>;
  private readonly leader: Gauge<'identity'>;
  private readonly leaderTransitions: Counter<'identity' | 'transition'>;
  private sources: ControllerGaugeSources | undefined;

  constructor(registry: Registry) {
    const registers = [registry];
    this.reconcileTotal = new Counter({
      name: 'dynamic_controller_reconcile_total',
      help: 'Total number of reconciliations per GVR',
      labelNames: ['gvr'],
      registers,
    });
    this.reconcileDuration = new Histogram({
      name: 'dynamic_controller_reconcile_duration_seconds',
      help: 'Duration of reconciliations per GVR',
      labelNames: ['gvr'],
      buckets: secondsBuckets,
      registers,
    });
    this.requeueTotal = new Counter({
      name: 'dynamic_controller_requeue_total',
      help: 'Total number of requeues per GVR and requeue type (needed, after, rate_limited)',
      labelNames: ['gvr', 'type'],
      registers,
    });
    this.handlerErrors = new Counter({
      name: 'dynamic_controller_handler_errors_total',
      help: 'Total number of errors returned by handlers per GVR',
      labelNames: ['gvr'],
      registers,
    });
    this.handlerExceptions = new Counter({
      name: 'dynamic_controller_handler_exceptions_total',
      help: 'Handlers that threw synchronously instead of returning a rejected promise (kro counts these as panics)',
      labelNames: ['gvr'],
      registers,
    });
    this.droppedTotal = new Counter({
      name: 'dynamic_controller_dropped_total',
      help: 'Work items dropped after max retries or because their parent GVR is no longer registered',
      labelNames: ['gvr'],
      registers,
    });
    this.cancelledTotal = new Counter({
      name: 'dynamic_controller_cancelled_total',
      help: 'Passes cut off by normal operation (parent deregistered or deleted, shutdown, end of a leadership term, lost shard range); not handler errors, not retried',
      labelNames: ['gvr'],
      registers,
    });
    this.cacheReadFallbacks = new Counter({
      name: 'dynamic_controller_cache_read_fallbacks_total',
      help: 'Cached reads (ctx.get, ctx.list) that found the object cache behind a write of the handler after readYourWritesTimeoutMs and read from the API server instead, per GVR',
      labelNames: ['gvr'],
      registers,
    });
    this.parentEvents = new Counter({
      name: 'dynamic_controller_parent_events_total',
      help: 'Events of registered parent GVRs, by event type',
      labelNames: ['gvr', 'event_type'],
      registers,
    });
    this.informerEvents = new Counter({
      name: 'dynamic_controller_informer_events_total',
      help: 'Total number of events processed by informers per GVR and event type',
      labelNames: ['gvr', 'event_type'],
      registers,
    });
    this.informerSyncDuration = new Histogram({
      name: 'dynamic_controller_informer_sync_duration_seconds',
      help: 'Duration of informer cache sync per GVR',
      labelNames: ['gvr'],
      buckets: secondsBuckets,
      registers,
    });
    this.routeTotal = new Counter({
      name: 'dynamic_controller_route_total',
      help: 'Total events routed through the coordinator by GVR',
      labelNames: ['gvr'],
      registers,
    });
    this.routeMatchTotal = new Counter({
      name: 'dynamic_controller_route_match_total',
      help: 'Total events that matched at least one instance by GVR',
      labelNames: ['gvr'],
      registers,
    });
    this.leader = new Gauge({
      name: 'dynamic_controller_leader',
      help: 'With leader election: 1 while this replica leads (its workers run), 0 on standby',
      labelNames: ['identity'],
      registers,
    });
    this.leaderTransitions = new Counter({
      name: 'dynamic_controller_leader_transitions_total',
      help: 'With leader election: terms this replica started (started_leading) and ended (stopped_leading)',
      labelNames: ['identity', 'transition'],
      registers,
    });
    const gauge = (name: string, help: string, read: (s: ControllerGaugeSources) => number): void => {
      const sources = (): ControllerGaugeSources | undefined => this.sources;
      new Gauge({
        name,
        help,
        registers,
        collect() {
          const s = sources();
          this.set(s === undefined ? 0 : read(s));
        },
      });
    };
    gauge('dynamic_controller_queue_length', 'Current length of the workqueue', (s) => s.queueLength());
    gauge('dynamic_controller_gvr_count', 'Number of parent GVRs currently registered', (s) => s.registeredGvrCount());
    gauge('dynamic_controller_watch_count', 'Number of active informers managed by the watch manager', (s) => s.activeWatchCount());
    // A counter read at scrape time from core's process-wide count (a Gauge whose value only grows).
    new Gauge({
      name: 'dynamic_controller_unfenced_writes',
      help: "Writes sent through @protean/client without a fenced pass's ctx.signal since this process first acted under a lease (each could land after the lease ended)",
      registers,
      collect() {
        this.set(unfencedWriteCount());
      },
    });
    new Gauge({
      name: 'dynamic_controller_api_warnings',
      help: 'Warnings the API server sent with its answers to @protean/client (Warning headers: fields it pruned, deprecated versions)',
      registers,
      collect() {
        this.set(apiWarningCount());
      },
    });
    gauge('dynamic_controller_instance_watch_count', 'Number of instances with at least one watch request', (s) => s.instanceWatchCount());
    const sources = (): ControllerGaugeSources | undefined => this.sources;
    new Gauge({
      name: 'dynamic_controller_watch_request_count',
      help: 'Number of active watch requests by type (scalar/collection)',
      labelNames: ['type'],
      registers,
      collect() {
        const counts = sources()?.watchRequestCount() ?? { scalar: 0, collection: 0 };
        this.set({ type: 'scalar' }, counts.scalar);
        this.set({ type: 'collection' }, counts.collection);
      },
    });
    // Per-informer health, read at scrape time; an informer that stopped drops out of every series.
    const perInformer = (name: string, help: string, read: (i: InformerStatus) => number): void => {
      new Gauge({
        name,
        help,
        labelNames: ['gvr'],
        registers,
        collect() {
          this.reset();
          for (const i of sources()?.informers?.() ?? []) this.set({ gvr: i.gvr }, read(i));
        },
      });
    };
    perInformer('dynamic_controller_informer_synced', 'Informers that delivered their initial list (1) or not yet (0), per GVR', (i) =>
      i.synced ? 1 : 0,
    );
    perInformer(
      'dynamic_controller_informer_healthy',
      'Informers that pass the readiness rules (synced, not failing beyond the grace period, not stalled), per GVR',
      (i) => (i.healthy ? 1 : 0),
    );
    perInformer(
      'dynamic_controller_informer_idle_seconds',
      'Seconds since the informer last heard from the API server (event, bookmark, list page, watch response), per GVR',
      (i) => (i.idleMs ?? 0) / 1000,
    );
    perInformer(
      'dynamic_controller_informer_failing_seconds',
      'Seconds the informer has been failing (backing off or retrying); 0 when healthy, per GVR',
      (i) => (i.failing?.forMs ?? 0) / 1000,
    );
    perInformer(
      'dynamic_controller_informer_consecutive_failures',
      'Failed list/watch attempts in a row of the current outage; 0 when healthy, per GVR',
      (i) => i.failing?.consecutive ?? 0,
    );
    new Counter({
      name: 'dynamic_controller_informer_relists_total',
      help: 'Lists after the initial one (after a 410 Expired, a refusal or another failure) of the running informer, per GVR',
      labelNames: ['gvr'],
      registers,
      collect() {
        this.reset();
        for (const i of sources()?.informers?.() ?? []) this.inc({ gvr: i.gvr }, i.relists);
      },
    });
  }

  /** Connects the scrape-time gauges to a live controller. */
  attach(sources: ControllerGaugeSources): void {
    this.sources = sources;
  }

  onReconcile(gvr: GroupVersionResource, durationMs: number, outcome: ReconcileOutcome): void {
    const key = gvrKey(gvr);
    if (outcome === 'dropped') {
      this.droppedTotal.inc({ gvr: key });
      if (durationMs === 0) return;
    }
    if (outcome === 'cancelled') this.cancelledTotal.inc({ gvr: key });
    this.reconcileTotal.inc({ gvr: key });
    this.reconcileDuration.observe({ gvr: key }, durationMs / 1000);
    const requeueType =
      outcome === 'requeue' ? 'needed' : outcome === 'requeue_after' ? 'after' : outcome === 'error' ? 'rate_limited' : undefined;
    if (requeueType !== undefined) this.requeueTotal.inc({ gvr: key, type: requeueType });
  }

  onParentEvent(gvr: GroupVersionResource, type: EventType): void {
    this.parentEvents.inc({ gvr: gvrKey(gvr), event_type: type });
  }

  onHandlerError(gvr: GroupVersionResource, _err: unknown, thrownSync: boolean): void {
    const key = gvrKey(gvr);
    this.handlerErrors.inc({ gvr: key });
    if (thrownSync) this.handlerExceptions.inc({ gvr: key });
  }

  onCacheReadFallback(gvr: GroupVersionResource): void {
    this.cacheReadFallbacks.inc({ gvr: gvrKey(gvr) });
  }

  onLeadershipChange(identity: string, leading: boolean): void {
    this.leader.set({ identity }, leading ? 1 : 0);
    this.leaderTransitions.inc({ identity, transition: leading ? 'started_leading' : 'stopped_leading' });
  }

  /**
   * Shows `identity` as a standby (`dynamic_controller_leader` 0) before its
   * first term, so a standby exports the gauge too.
   */
  observeStandby(identity: string): void {
    this.leader.set({ identity }, 0);
  }

  /** Counts one informer event (called by the instrumented watch manager). */
  observeInformerEvent(event: WatchEvent): void {
    this.informerEvents.inc({ gvr: gvrKey(event.gvr), event_type: event.type });
  }

  /** Records how long a new informer took to sync. */
  observeInformerSync(gvr: GroupVersionResource, durationMs: number): void {
    this.informerSyncDuration.observe({ gvr: gvrKey(gvr) }, durationMs / 1000);
  }

  /** Counts one routed event, and whether it reached at least one instance. */
  observeRoute(gvr: GroupVersionResource, matched: boolean): void {
    const key = gvrKey(gvr);
    this.routeTotal.inc({ gvr: key });
    if (matched) this.routeMatchTotal.inc({ gvr: key });
  }
}
