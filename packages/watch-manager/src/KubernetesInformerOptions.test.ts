import { describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeConnectionPool, sharedConnectionPool } from '@protean/transport';
import { resolveInformerSettings, type InformerConnectionMode } from './KubernetesInformerOptions.js';

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
