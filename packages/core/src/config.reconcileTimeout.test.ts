import { describe, expect, it } from '@jest/globals';
import { ConfigError, defaultConfig, resolveConfig } from './config.js';

describe('Config.reconcileTimeoutMs', () => {
  it('defaults to 5 minutes', () => {
    expect(defaultConfig.reconcileTimeoutMs).toBe(300_000);
    expect(resolveConfig().reconcileTimeoutMs).toBe(300_000);
  });

  it('accepts 0 as "no limit"', () => {
    expect(resolveConfig({ reconcileTimeoutMs: 0 }).reconcileTimeoutMs).toBe(0);
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])('rejects %p naming the field', (value) => {
    expect(() => resolveConfig({ reconcileTimeoutMs: value })).toThrow(ConfigError);
    expect(() => resolveConfig({ reconcileTimeoutMs: value })).toThrow(`invalid config reconcileTimeoutMs=${String(value)}`);
  });
});
