import { describe, expect, it } from '@jest/globals';
import { wasChecked } from '../checkedSettings.js';
import { realClock } from '../clock.js';
import { ConfigError, defaultConfig, resolveConfig, type Config } from '../config.js';
import type { WorkQueueOptions } from '../contracts/index.js';
import { coreModule } from '../coreModule.js';
import { silentLogger } from '../logger.js';
import { FakeInformerSource, FakeWatchCoordinator, FakeWatchManager, FakeWorkQueue } from '../testing/index.js';
import { DynamicController } from './DynamicController.js';
import type { DynamicControllerOptions } from './DynamicControllerOptions.js';

/** The factories of a controller built from doubles; `queueOptions` records what the queue factory was given. */
function doubles(): Omit<DynamicControllerOptions, 'config'> & { readonly queueOptions: WorkQueueOptions<unknown>[] } {
  const queueOptions: WorkQueueOptions<unknown>[] = [];
  return {
    queueOptions,
    logger: silentLogger(),
    informerSource: new FakeInformerSource(),
    workQueueFactory: <T>(options: WorkQueueOptions<T>) => {
      queueOptions.push(options as WorkQueueOptions<unknown>);
      return new FakeWorkQueue<T>(options);
    },
    watchManagerFactory: (deps) => new FakeWatchManager({ onEvent: deps.onEvent }),
    watchCoordinatorFactory: (deps) => new FakeWatchCoordinator(deps),
  };
}

describe('buildControllerParts: the queue limits, checked once where they entered', () => {
  it("hands the queue factory the limits resolveConfig checked, frozen and marked so the queue's limiter takes them as they are", () => {
    const parts = doubles();
    DynamicController.create({ ...parts, config: { minRetryDelayMs: 300, maxRetryDelayMs: 9_000, rateLimit: 4, burstLimit: 7 } });
    expect(parts.queueOptions).toHaveLength(1);
    const limits = parts.queueOptions[0]?.limits;
    expect(limits).toEqual({ minRetryDelayMs: 300, maxRetryDelayMs: 9_000, qps: 4, burst: 7 });
    expect(Object.isFrozen(limits)).toBe(true);
    expect(wasChecked(limits)).toBe(true);
  });

  it('checks a config at every public entry, before any part is built, naming the field and the limit', () => {
    const tooLong = `invalid config resyncPeriodMs=${2 ** 31}: must be a number from 0 to ${2 ** 31 - 1}`;
    const parts = doubles();
    expect(() => resolveConfig({ resyncPeriodMs: 2 ** 31 })).toThrow(tooLong);
    expect(() => coreModule({ resyncPeriodMs: 2 ** 31 }, silentLogger())).toThrow(tooLong);
    expect(() => DynamicController.create({ ...parts, config: { resyncPeriodMs: 2 ** 31 } })).toThrow(tooLong);
    const handBuilt: Config = { ...defaultConfig, resyncPeriodMs: 2 ** 31 };
    expect(
      () =>
        new DynamicController(
          handBuilt,
          silentLogger(),
          realClock,
          parts.informerSource,
          parts.workQueueFactory,
          parts.watchManagerFactory,
          parts.watchCoordinatorFactory,
        ),
    ).toThrow(tooLong);
    expect(() => DynamicController.create({ ...parts, config: { maxRetryDelayMs: Number.POSITIVE_INFINITY } })).toThrow(ConfigError);
    expect(parts.queueOptions).toEqual([]);
  });
});
