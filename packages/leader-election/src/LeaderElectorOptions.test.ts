import { describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { silentLogger } from '@protean/core';
import { defaultIdentity } from './defaultIdentity.js';
import { FakeLeaseClient } from './FakeLeaseClient.js';
import { KubeLeaseClient } from './KubeLeaseClient.js';
import { LeaderElectionConfigError } from './LeaderElectionConfigError.js';
import { LeaderElector } from './LeaderElector.js';
import { resolveLeaderElectorOptions, type LeaderElectorOptions } from './LeaderElectorOptions.js';

const base: LeaderElectorOptions = { namespace: 'ns', leaseName: 'ctl', client: new FakeLeaseClient(), logger: silentLogger() };

function failure(options: Partial<LeaderElectorOptions> & Record<string, unknown>): LeaderElectionConfigError {
  try {
    resolveLeaderElectorOptions({ ...base, ...options } as LeaderElectorOptions);
  } catch (err) {
    if (err instanceof LeaderElectionConfigError) return err;
    throw err;
  }
  throw new Error('expected a LeaderElectionConfigError');
}

describe('LeaderElectorOptions', () => {
  it("fills in client-go's defaults: 15 s lease, 10 s renew deadline, 2 s retry period, jitter 1.2", () => {
    const o = resolveLeaderElectorOptions(base);
    expect(o).toMatchObject({
      namespace: 'ns',
      leaseName: 'ctl',
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      jitter: 1.2,
    });
    expect(o.identity).toMatch(/^.+_\d+_[0-9a-f]{8}$/);
  });

  it('talks to the cluster over HTTP when given a KubeConfig', () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: 'http://127.0.0.1:1', skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const { client: _client, ...rest } = base;
    expect(resolveLeaderElectorOptions({ ...rest, kubeConfig: kc }).client).toBeInstanceOf(KubeLeaseClient);
  });

  it.each([
    [{ leaseName: '' }, 'leaseName', 'must be a non-empty string, got ""'],
    [{ leaseName: 'Bad_Name' }, 'leaseName', 'must be a DNS subdomain'],
    [{ namespace: '' }, 'namespace', 'must be a non-empty string, got ""'],
    [{ namespace: 'a.b' }, 'namespace', 'must be a DNS label'],
    [{ identity: ' ' }, 'identity', 'must be a non-empty string'],
    [{ leaseDurationMs: 0 }, 'leaseDurationMs', 'must be a finite number of milliseconds > 0, got 0'],
    [{ leaseDurationMs: 15_500 }, 'leaseDurationMs', 'must be a whole number of seconds'],
    [{ renewDeadlineMs: 15_000 }, 'renewDeadlineMs', 'must be less than leaseDurationMs (15000), got 15000'],
    [{ renewDeadlineMs: 2_000 }, 'renewDeadlineMs', 'must be greater than retryPeriodMs and jitter * retryPeriodMs (2400), got 2000'],
    [{ retryPeriodMs: Number.NaN }, 'retryPeriodMs', 'must be a finite number of milliseconds > 0'],
    [{ jitter: -1 }, 'jitter', 'must be a finite number >= 0, got -1'],
    [{ kubeConfig: new KubeConfig() }, 'kubeConfig', 'give exactly one of kubeConfig and client'],
  ] as const)('rejects %j naming %s', (options, field, message) => {
    const err = failure(options);
    expect(err.field).toBe(field);
    expect(err.name).toBe('LeaderElectionConfigError');
    expect(err.message).toContain(`invalid leader election option ${field}: ${message}`);
  });

  it('refuses bad options in the LeaderElector constructor, before any request', () => {
    const client = new FakeLeaseClient();
    expect(() => new LeaderElector({ ...base, client, renewDeadlineMs: 20_000 })).toThrow(LeaderElectionConfigError);
    expect(client.calls).toEqual([]);
  });

  it('gives every process a different default identity', () => {
    expect(defaultIdentity()).not.toBe(defaultIdentity());
  });
});
