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
