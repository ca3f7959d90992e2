import {
  createLogger,
  DeletedFinalStateUnknown,
  realClock,
  type Clock,
  type GroupVersionResource,
  type Logger,
  type PartialObjectMetadata,
  type ResourceEventHandler,
  type TimerHandle,
} from '@protean/core';
import { Informer, KubernetesInformerSource, type KubernetesInformerSourceOptions, type KubernetesListWatch } from '@protean/watch-manager';
import type { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { waitFor as sharedWaitFor } from '@protean/core/testing';

/** Test-only helpers of the KubernetesInformerSource integration tests. */

export const CONFIGMAPS: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
export const NAMESPACES: GroupVersionResource = { group: '', version: 'v1', resource: 'namespaces' };
export const SECRETS: GroupVersionResource = { group: '', version: 'v1', resource: 'secrets' };
export const WEBAPPS: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
export const WEBAPP_DEF = { ...WEBAPPS, kind: 'WebApp', namespaced: true };

/**
 * Small, jitter-free delays so failure paths run in milliseconds. These
 * tests count LIST pages and requests, so they pin the paginated LIST;
 * streaming lists are tested in watch-manager's
 * KubernetesInformer.streaming.test.ts and the conformance suite.
 */
export const FAST: Partial<KubernetesInformerSourceOptions> = {
  streamingList: 'never',
  backoff: { initialMs: 20, maxMs: 200, jitter: 0 },
  notServedMaxBackoffMs: 160,
  inactivityTimeoutMs: 5000,
  maxRetryAfterMs: 5000,
};

/** Polls `cond` every 10 ms until it returns something truthy, and returns that value (core's `waitFor` waits for `true` only); fails after `timeoutMs`. */
export async function waitForValue<T>(cond: () => T | undefined | null | false, what: string, timeoutMs = 5000): Promise<T> {
  let value: T | undefined | null | false;
  await sharedWaitFor(
    () => {
      value = cond();
      return value !== undefined && value !== null && value !== false;
    },
    { message: what, timeoutMs, intervalMs: 10 },
  );
  return value as T;
}

/** The real clock, recording every delay asked for and which timers are still pending. */
export class RecordingClock implements Clock {
  readonly delays: number[] = [];
  private readonly pending = new Set<TimerHandle>();
  now(): number {
    return realClock.now();
  }
  setTimeout(fn: () => void, delayMs: number): TimerHandle {
    this.delays.push(delayMs);
    const handle: TimerHandle = realClock.setTimeout(() => {
      this.pending.delete(handle);
      fn();
    }, delayMs);
    this.pending.add(handle);
    return handle;
  }
  clearTimeout(handle: TimerHandle): void {
    this.pending.delete(handle);
    realClock.clearTimeout(handle);
  }
  pendingTimers(): number {
    return this.pending.size;
  }
}

export interface RecordedEvent {
  type: 'add' | 'update' | 'delete';
  name: string;
  obj: PartialObjectMetadata | DeletedFinalStateUnknown;
  old?: PartialObjectMetadata;
  initial?: boolean;
  syncedAtDelivery: boolean;
}

/** Records every callback an informer makes, with whether the informer reported synced at that time. */
export class Recorder implements ResourceEventHandler {
  readonly events: RecordedEvent[] = [];
  constructor(private readonly synced: () => boolean = () => false) {}
  onAdd(obj: PartialObjectMetadata, initial: boolean): void {
    this.events.push({ type: 'add', name: obj.metadata.name, obj, initial, syncedAtDelivery: this.synced() });
  }
  onUpdate(old: PartialObjectMetadata, obj: PartialObjectMetadata): void {
    this.events.push({ type: 'update', name: obj.metadata.name, obj, old, syncedAtDelivery: this.synced() });
  }
  onDelete(obj: PartialObjectMetadata | DeletedFinalStateUnknown): void {
    const name = obj instanceof DeletedFinalStateUnknown ? obj.key.split('/').pop()! : obj.metadata.name;
    this.events.push({ type: 'delete', name, obj, syncedAtDelivery: this.synced() });
  }
  of(type: RecordedEvent['type'], name?: string): RecordedEvent[] {
    return this.events.filter((e) => e.type === type && (name === undefined || e.name === name));
  }
}

export interface LogEntry {
  level: number;
  msg: string;
}

/** A debug-level logger that keeps its entries in memory. */
export function recordingLogger(): { logger: Logger; entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const logger = createLogger({
    level: 'debug',
    hooks: {
      logMethod(args, _method, level) {
        entries.push({ level, msg: args.find((a): a is string => typeof a === 'string') ?? '' });
      },
    },
  });
  return { logger, entries };
}

export interface RunningInformer {
  informer: Informer;
  listWatch: KubernetesListWatch;
  recorder: Recorder;
  errors: Error[];
  logs: LogEntry[];
  clock: RecordingClock;
  abort: AbortController;
}

/** Creates, wires and runs an informer of `gvr` against `server` (not awaiting sync). */
export function runInformer(
  server: InMemoryApiServer,
  gvr: GroupVersionResource,
  options: Partial<KubernetesInformerSourceOptions> & { resyncPeriodMs?: number } = {},
): RunningInformer {
  const { resyncPeriodMs = 0, ...rest } = options;
  const clock = new RecordingClock();
  const { logger, entries } = recordingLogger();
  const source = new KubernetesInformerSource({ kubeConfig: server.kubeConfig(), clock, logger, ...FAST, ...rest });
  const listWatch = source.createListWatch(gvr);
  const errors: Error[] = [];
  // The recorder reads the informer's sync state at each delivery; the informer exists before anything is delivered.
  const recorder = new Recorder(() => informer.hasSynced());
  const informer = new Informer(
    listWatch,
    {
      onAdd: (obj, initial) => recorder.onAdd(obj, initial),
      onUpdate: (old, obj) => recorder.onUpdate(old, obj),
      onDelete: (obj) => recorder.onDelete(obj),
      onError: (err) => errors.push(err),
    },
    { resyncPeriodMs, clock },
  );
  const abort = new AbortController();
  informer.run(abort.signal);
  return { informer, listWatch, recorder, errors, logs: entries, clock, abort };
}

/** LIST requests the server received for `path` (watches excluded). */
export function listRequests(server: InMemoryApiServer, path: string) {
  return server.requests().filter((r) => r.method === 'GET' && r.path === path && r.query.get('watch') !== 'true');
}

/** WATCH requests the server received for `path`. */
export function watchRequests(server: InMemoryApiServer, path: string) {
  return server.requests().filter((r) => r.method === 'GET' && r.path === path && r.query.get('watch') === 'true');
}

/** Creates `count` ConfigMaps named `${prefix}-${i}` spread over two namespaces. */
export function createConfigMaps(server: InMemoryApiServer, count: number, prefix = 'cm'): void {
  for (let i = 0; i < count; i++) {
    server.create(CONFIGMAPS, {
      metadata: { name: `${prefix}-${i}`, namespace: i % 2 === 0 ? 'team-a' : 'team-b', labels: { app: 'demo', idx: String(i % 7) } },
      data: { key: 'value' },
    });
  }
}
