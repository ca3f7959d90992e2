import { describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeConnectionPool, sharedConnectionPool } from '@protean/transport';
import { checkInformerOptions, resolveInformerSettings, type InformerConnectionMode } from './KubernetesInformerOptions.js';
import { KubernetesInformerSource } from './KubernetesInformerSource.js';
import { KubernetesListWatch } from './KubernetesListWatch.js';

describe('resolveInformerSettings connection', () => {
  const kubeConfig = new KubeConfig();

  it("streams over the KubeConfig's shared pool by default", () => {
    expect(resolveInformerSettings({ kubeConfig }).connectionPool).toBe(sharedConnectionPool(kubeConfig));
    expect(resolveInformerSettings({ kubeConfig, connection: 'shared' }).connectionPool).toBe(sharedConnectionPool(kubeConfig));
  });

  it('uses the pool it is given', () => {
    const pool = new KubeConnectionPool(kubeConfig);
    expect(resolveInformerSettings({ kubeConfig, connectionPool: pool }).connectionPool).toBe(pool);
  });

  it("has no pool with connection: 'per-request' (a connection per request)", () => {
    expect(resolveInformerSettings({ kubeConfig, connection: 'per-request' }).connectionPool).toBeUndefined();
  });

  it('names a bad connection mode', () => {
    expect(() => resolveInformerSettings({ kubeConfig, connection: 'pooled' as InformerConnectionMode })).toThrow(
      `options.connection must be 'shared' or 'per-request', got "pooled"`,
    );
  });
});

describe('checkInformerOptions', () => {
  const kubeConfig = new KubeConfig();
  const limit = 2 ** 31 - 1;

  it.each([
    [{ pageSize: 0 }, 'pageSize must be a whole number >= 1, got 0'],
    [{ pageSize: 2.5 }, 'pageSize must be a whole number >= 1, got 2.5'],
    [{ inactivityTimeoutMs: 0 }, 'inactivityTimeoutMs must be a number > 0 (ms), got 0'],
    [{ inactivityTimeoutMs: Number.NaN }, 'inactivityTimeoutMs must be a number > 0 (ms), got NaN'],
    [{ inactivityTimeoutMs: limit + 1 }, `inactivityTimeoutMs must be at most ${limit} ms`],
    [{ streamingListTimeoutMs: Infinity }, `streamingListTimeoutMs must be at most ${limit} ms`],
    [{ shortWatchMs: -1 }, 'shortWatchMs must be a number >= 0 (ms), got -1'],
    [{ minWatchTimeoutSeconds: 0 }, 'minWatchTimeoutSeconds must be a whole number >= 1, got 0'],
    [{ maxWatchTimeoutSeconds: 3_000_000 }, `maxWatchTimeoutSeconds must be at most ${limit} ms`],
    [{ backoff: { maxMs: Infinity } }, `backoff.maxMs must be at most ${limit} ms`],
    [{ notServedMaxBackoffMs: -5 }, 'notServedMaxBackoffMs must be a number >= 0 (ms), got -5'],
    [{ maxRetryAfterMs: limit * 2 }, `maxRetryAfterMs must be at most ${limit} ms`],
  ])('refuses %j where the options enter, naming the setting', (bad, message) => {
    expect(() => new KubernetesInformerSource({ kubeConfig, connection: 'per-request', ...bad })).toThrow(message);
    // A list/watch built from options no source checked checks them itself.
    expect(() => new KubernetesListWatch({ group: '', version: 'v1', resource: 'configmaps' }, { kubeConfig, ...bad })).toThrow(message);
  });

  it('takes every duration at the limit and the smallest values', () => {
    const edge = {
      pageSize: 1,
      inactivityTimeoutMs: limit,
      streamingListTimeoutMs: 1,
      shortWatchMs: 0,
      minWatchTimeoutSeconds: 1,
      maxWatchTimeoutSeconds: Math.floor(limit / 1000),
      backoff: { initialMs: 0, maxMs: limit, resetAfterMs: limit },
      notServedMaxBackoffMs: limit,
      maxRetryAfterMs: 0,
    };
    expect(() => checkInformerOptions({ kubeConfig, ...edge })).not.toThrow();
    expect(() => new KubernetesInformerSource({ kubeConfig, connection: 'per-request', ...edge })).not.toThrow();
  });
});
