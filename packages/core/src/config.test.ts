import { describe, expect, it } from '@jest/globals';
import { ConfigError, defaultConfig, resolveConfig, type Config } from './config.js';

describe('resolveConfig: settings checked once, where they enter', () => {
  it('returns a config it resolved as it is when given it again', () => {
    const resolved = resolveConfig({ workers: 2, resyncPeriodMs: 0 });
    expect(resolveConfig(resolved)).toBe(resolved);
    expect(Object.isFrozen(resolved)).toBe(true);
  });

  it('checks every other object, also a complete hand-built one, naming the bad field', () => {
    const handBuilt: Config = { ...defaultConfig, resyncPeriodMs: -1 };
    expect(() => resolveConfig(handBuilt)).toThrow(ConfigError);
    expect(() => resolveConfig(handBuilt)).toThrow('invalid config resyncPeriodMs=-1');
    // A copy of a resolved config is the caller's own object: checked again.
    const copy = { ...resolveConfig(), workers: 0 };
    expect(() => resolveConfig(copy)).toThrow('invalid config workers=0');
  });
});

describe('resolveConfig: durations that become timers', () => {
  const timerFields = ['resyncPeriodMs', 'queueShutdownTimeoutMs', 'readYourWritesTimeoutMs', 'reconcileTimeoutMs'] as const;

  it.each(timerFields)('rejects %s of 2^31 ms (Node would fire the timer after 1 ms), naming the field and the limit', (field) => {
    expect(() => resolveConfig({ [field]: 2 ** 31 })).toThrow(ConfigError);
    expect(() => resolveConfig({ [field]: 2 ** 31 })).toThrow(
      `invalid config ${field}=2147483648: must be a number from 0 to 2147483647 (the longest delay Node's timers honour)`,
    );
    expect(() => resolveConfig({ [field]: Number.POSITIVE_INFINITY })).toThrow(`invalid config ${field}=Infinity`);
  });

  it.each(timerFields)('accepts %s of 2^31 - 1 ms and of 0', (field) => {
    expect(resolveConfig({ [field]: 2 ** 31 - 1 })[field]).toBe(2 ** 31 - 1);
    expect(resolveConfig({ [field]: 0 })[field]).toBe(0);
  });

  it('rejects an infinite maxRetryDelayMs: the queue delays retries by it and takes it as checked here', () => {
    expect(() => resolveConfig({ maxRetryDelayMs: Number.POSITIVE_INFINITY })).toThrow(
      'invalid config maxRetryDelayMs=Infinity: must be a finite number >= minRetryDelayMs',
    );
  });
});
