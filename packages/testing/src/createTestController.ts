import {
  coreModule,
  DynamicController,
  realClock,
  silentLogger,
  TOKENS,
  type Clock,
  type Config,
  type ControllerObserver,
  type WatchCoordinator,
  type GroupVersionResource,
  type Handler,
  type InformerSource,
  type Leadership,
  type PassGate,
  type Logger,
  type ObjectIdentifiers,
  type RateLimitingQueue,
  type RegisterOptions,
  type WatchManager,
  type WatchManagerFactory,
  type WorkQueueFactory,
  type WorkQueueOptions,
} from '@protean/core';
import { coordinatorModule } from '@protean/coordinator';
import { queueModule } from '@protean/queue';
import { watchManagerModule, type InformerWatchManagerOptions } from '@protean/watch-manager';
import { Container } from 'inversify';
import { FakeInformerSource, waitForTimeoutMs, type WaitForOptions } from '@protean/core/testing';
import { controllerWaitFor } from './controllerWaitFor.js';
import type { FailedPass } from './FailedPass.js';
import { FailedPassLog, warnFailedPass } from './FailedPassLog.js';

/**
 * The config a test controller starts from: one worker, retries after 1 ms
 * doubling to 20 ms, 3 retries, no resync, rate limits out of the way,
 * 5 s shutdown timeout. `options.config` fields override these.
 */
export const testControllerConfig: Readonly<Partial<Config>> = Object.freeze({
  workers: 1,
  resyncPeriodMs: 0,
  queueMaxRetries: 3,
  minRetryDelayMs: 1,
  maxRetryDelayMs: 20,
  rateLimit: 1_000_000,
  burstLimit: 1_000_000,
  queueShutdownTimeoutMs: 5_000,
});

/**
 * The default timeout of {@link TestController.waitFor}: 4 s, below Jest's
 * default test timeout (5 s), so a condition that never holds fails with
 * the test kit's message (the condition, the last failed pass) rather than
 * Jest's generic "Exceeded timeout".
 */
export const testWaitForTimeoutMs: number = waitForTimeoutMs;

/** Options of {@link createTestController}. */
export interface TestControllerOptions<S extends InformerSource = FakeInformerSource> {
  /** Merged over {@link testControllerConfig}. */
  readonly config?: Partial<Config>;
  /**
   * Where informers come from. Default: a new {@link FakeInformerSource}.
   * The returned {@link TestController}'s `source` has this option's type.
   */
  readonly source?: S;
  /**
   * The controller's and the queue's clock (`TOKENS.clock`). Default: real
   * time. With a `FakeClock`, retries, `RequeueNeededAfter` delays and the
   * shutdown timeout wait for `clock.advanceAsync(...)`.
   */
  readonly clock?: Clock;
  /**
   * The controller's logger. Default: silent (failed passes still reach the
   * test output through `logFailures`). Pass `new LogRecorder().logger` to
   * assert on logs.
   */
  readonly logger?: Logger;
  /** Bound to `TOKENS.controllerObserver` (default: none). Its hooks run as usual; failed passes are recorded before its `onHandlerError`. */
  readonly observer?: ControllerObserver;
  /**
   * Where each failed pass (a handler error, as `ControllerObserver.onHandlerError`
   * reports it) is printed while the controller runs, as one line with the
   * instance, the error and where it was thrown: `true` (default)
   * `console.warn`, so Jest shows it under the test; `false` nowhere, for a
   * test whose handler fails on purpose; a function receives each line.
   * {@link TestController.lastFailedPass} and `waitFor`'s timeout message
   * report the last one either way.
   */
  readonly logFailures?: boolean | ((line: string) => void);
  /**
   * Options of the InformerWatchManager built for the controller. Default: real
   * clock (a sync is a signal, so it never needs a fake clock advanced), 5 s
   * sync timeout, no back-off after a failed sync.
   */
  readonly watchManager?: InformerWatchManagerOptions;
  /**
   * Bound to `TOKENS.leadership`: the workers run only in the terms it
   * leads (e.g. core's `FakeLeadership`, or a `LeaderElector` on the
   * in-memory API server). A term offered without a fence makes `start`
   * reject with a `FencingRequiredError`.
   */
  readonly leadership?: Leadership;
  /**
   * Bound to `TOKENS.passGate`: every handler registered is wrapped by it
   * and it runs from `start` (e.g. `@protean/sharding`'s `ShardReplica`).
   * A gate without `fencing` is refused with a `FencingRequiredError`.
   */
  readonly passGate?: PassGate;
  /** Rebind tokens here (`container.rebind(TOKENS.x)...`); it runs before the controller is built. */
  readonly configure?: (container: Container) => void;
  /** Default timeout of the returned `waitFor`. Default {@link testWaitForTimeoutMs} (4 s). */
  readonly waitForTimeoutMs?: number;
}

/**
 * A DynamicController wired to fakes, with helpers to run it in a test.
 * `S` is the type of its informer source: {@link FakeInformerSource} (with
 * `add`, `update`, `delete`, `informers(...)`) unless `options.source` gave
 * another one, e.g. a `KubernetesInformerSource` over an in-memory API
 * server, whose objects the test writes through the server instead.
 */
export interface TestController<S extends InformerSource = FakeInformerSource> {
  /** The controller, built by the container (`container.get(DynamicController)`). */
  readonly controller: DynamicController;
  /** The informer source bound to `TOKENS.informerSource`: `options.source`, else a new {@link FakeInformerSource}. */
  readonly source: S;
  /** The Inversify container the controller was built from, with every token bound. */
  readonly container: Container;
  /** The clock bound to `TOKENS.clock` (`options.clock`, else real time). */
  readonly clock: Clock;
  /** The queue the controller built, through whichever factory is bound. */
  readonly queue: RateLimitingQueue<ObjectIdentifiers>;
  /** The watch manager the controller built (an InformerWatchManager unless rebound). */
  readonly watchManager: WatchManager;
  /** The controller's watch coordinator, `controller.watchCoordinator()`. */
  readonly watchCoordinator: WatchCoordinator;
  /** Starts the controller without waiting for shutdown; rejects if `controller.start` rejects at once. */
  start(): Promise<void>;
  /** Aborts the start signal and resolves (or rejects) as `controller.start` does. Repeatable. */
  stop(): Promise<void>;
  /** `stop()` that never rejects, for `afterEach`. */
  dispose(): Promise<void>;
  /** Shorthand for `controller.register` (options: the GVRs the handler reads from the object cache, `cache`). */
  register(parent: GroupVersionResource, handler: Handler, options?: RegisterOptions): Promise<void>;
  /**
   * `waitFor` with this controller's default timeout
   * ({@link testWaitForTimeoutMs} unless `waitForTimeoutMs` says otherwise).
   * Its `WaitForTimeoutError` names the condition, which timeout
   * applied and how to raise it, and the last failed pass: the instance,
   * the handler's error and the stack frame that threw it.
   */
  waitFor(condition: () => boolean | Promise<boolean>, options?: WaitForOptions): Promise<void>;
  /** The last pass whose handler failed, if one did (see `logFailures`). */
  lastFailedPass(): FailedPass | undefined;
}

/**
 * Composes a DynamicController for a unit test the way an application
 * does, through an Inversify container: `coreModule` (test config, silent
 * logger), `queueModule` (the real queue), `coordinatorModule` (the real
 * IndexedWatchCoordinator), a real InformerWatchManager over `source` bound to
 * `TOKENS.watchManagerFactory`, and `source` bound to `TOKENS.informerSource`.
 * This overload: `options.source` given, so `t.source` has its type (a
 * `KubernetesInformerSource`, a `FakeInformerSource` subclass, ...).
 *
 * A failing handler shows in the test output: each failed pass is printed
 * with `console.warn` (`logFailures`), and `t.waitFor`'s timeout message
 * carries the last one.
 *
 * Easy to get wrong: `register` needs a started controller, so `await
 * t.start()` first, and `await t.dispose()` (or `stop()`) after each test,
 * or the workers keep the test process alive.
 */
export function createTestController<S extends InformerSource>(
  options: TestControllerOptions<S> & { readonly source: S },
): TestController<S>;
/**
 * {@link createTestController} over a new {@link FakeInformerSource}, the
 * in-memory "cluster" a test fills with `t.source.add(...)`.
 */
export function createTestController(options?: TestControllerOptions<FakeInformerSource>): TestController<FakeInformerSource>;
/**
 * {@link createTestController} with options whose `source` may be unset
 * (a helper passing its own options on): `t.source` is that source or a
 * new {@link FakeInformerSource}, so narrow it before using either's members.
 */
export function createTestController<S extends InformerSource>(options: TestControllerOptions<S>): TestController<S | FakeInformerSource>;
export function createTestController(options: TestControllerOptions<InformerSource> = {}): TestController<InformerSource> {
  const source = options.source ?? new FakeInformerSource();
  const clock = options.clock ?? realClock;
  const config = { ...testControllerConfig, ...options.config };
  const wmOptions: InformerWatchManagerOptions = {
    clock: realClock,
    syncTimeoutMs: 5_000,
    failureBackoff: { initialMs: 0, maxMs: 0 },
    ...options.watchManager,
  };

  const container = new Container();
  container.load(
    coreModule(config, options.logger ?? silentLogger()),
    queueModule(),
    watchManagerModule({ source, watchManager: wmOptions }),
    coordinatorModule(),
  );
  container.rebind(TOKENS.clock).toConstantValue(clock);
  if (options.observer !== undefined) container.rebind(TOKENS.controllerObserver).toConstantValue(options.observer);
  if (options.leadership !== undefined) container.bind(TOKENS.leadership).toConstantValue(options.leadership);
  if (options.passGate !== undefined) container.bind(TOKENS.passGate).toConstantValue(options.passGate);
  options.configure?.(container);

  const logFailures = options.logFailures ?? true;
  const failures = new FailedPassLog(logFailures === true ? warnFailedPass : logFailures === false ? undefined : logFailures);
  // Whichever observer ends up bound (the default, options.observer, one bound in configure) gets failures recorded first.
  container.onActivation(TOKENS.controllerObserver, (_ctx, observer) => failures.observe(observer));

  // Decorate whichever factories end up bound, to hand the built queue and watch manager to the test.
  let queue: RateLimitingQueue<ObjectIdentifiers> | undefined;
  let watchManager: WatchManager | undefined;
  container.onActivation(TOKENS.workQueueFactory, (_ctx, queueFactory): WorkQueueFactory => <T>(queueOptions: WorkQueueOptions<T>) => {
    const built = queueFactory(queueOptions);
    queue = built as unknown as RateLimitingQueue<ObjectIdentifiers>;
    return built;
  });
  container.onActivation(
    TOKENS.watchManagerFactory,
    (_ctx, factory): WatchManagerFactory =>
      (deps) =>
        (watchManager = factory(deps)),
  );

  const controller = container.get(DynamicController);
  if (queue === undefined || watchManager === undefined) {
    throw new Error('createTestController: the controller did not build its queue and watch manager');
  }
  failures.attach(controller);
  const wait = controllerWaitFor(
    failures,
    options.waitForTimeoutMs === undefined
      ? { timeoutMs: testWaitForTimeoutMs, from: 'kit' }
      : { timeoutMs: options.waitForTimeoutMs, from: 'option' },
  );
  let abort: AbortController | undefined;
  let running: Promise<void> | undefined;

  const stop = async (): Promise<void> => {
    if (abort === undefined || running === undefined) return;
    abort.abort();
    await running;
  };

  return {
    controller,
    source,
    container,
    clock,
    queue,
    watchManager,
    watchCoordinator: controller.watchCoordinator(),
    async start() {
      const attempt = new AbortController();
      const started = controller.start(attempt.signal);
      // Reported by stop(); never an unhandled rejection in between.
      started.catch(() => {});
      // A start that rejects at once (already running) has settled before this race.
      await Promise.race([started, Promise.resolve()]);
      abort = attempt;
      running = started;
    },
    stop,
    async dispose() {
      await stop().catch(() => {});
    },
    register: (parent, handler, options) => controller.register(parent, handler, options),
    waitFor: wait,
    lastFailedPass: () => failures.last(),
  };
}
