import { describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { silentLogger } from '@protean/core';
import { markChecked } from '@protean/core/internal';
import { defaultIdentity } from './defaultIdentity.js';
import { FakeLeaseClient } from './FakeLeaseClient.js';
import { KubeLeaseClient } from './KubeLeaseClient.js';
import { LeaderElectionConfigError } from './LeaderElectionConfigError.js';
import { leaderElectionModule } from './leaderElectionModule.js';
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

  const limit = "at most 2147483647 milliseconds (the longest delay Node's timers honour)";
  it.each([
    [{ leaseDurationMs: 2_147_484_000 }, 'leaseDurationMs', `must be ${limit}, got 2147484000`],
    [{ renewDeadlineMs: 2 ** 31 }, 'renewDeadlineMs', `must be ${limit}, got 2147483648`],
    [{ retryPeriodMs: 2 ** 31 }, 'retryPeriodMs', `must be ${limit}, got 2147483648`],
    [
      { leaseDurationMs: 2_147_483_000, renewDeadlineMs: 2_000_000_000, retryPeriodMs: 1_500_000_000 },
      'retryPeriodMs',
      "retryPeriodMs * (1 + jitter), the longest wait between a candidate's tries, must be at most 2147483647 " +
        "(the longest delay Node's timers honour), got 1500000000 * (1 + 1.2) = 3300000000",
    ],
  ] as const)(
    'rejects %j, a wait past the longest timer (Node would fire it after 1 ms), naming %s and the limit',
    (options, field, message) => {
      const err = failure(options);
      expect(err.field).toBe(field);
      expect(err.message).toContain(`invalid leader election option ${field}: ${message}`);
    },
  );

  it('accepts the longest durations a timer honours', () => {
    const o = resolveLeaderElectorOptions({
      ...base,
      leaseDurationMs: 2_147_483_000,
      renewDeadlineMs: 2_147_482_000,
      retryPeriodMs: 900_000_000,
    });
    expect(o.leaseDurationMs).toBe(2_147_483_000);
  });

  it('refuses a duration past the longest timer at both public entries, the LeaderElector constructor and the module', () => {
    expect(() => new LeaderElector({ ...base, retryPeriodMs: 2 ** 31 })).toThrow(
      `invalid leader election option retryPeriodMs: must be ${limit}`,
    );
    expect(() => leaderElectionModule({ ...base, renewDeadlineMs: 2 ** 31 })).toThrow(
      `invalid leader election option renewDeadlineMs: must be ${limit}`,
    );
  });

  it("takes options checked where they entered (leaderElectionModule's) as they are: the elector does not check them again", () => {
    // Out of range on purpose (a renew deadline past the lease): only a second check would notice.
    const checked = markChecked(Object.freeze({ ...base, renewDeadlineMs: 20_000 }));
    expect(new LeaderElector(checked).options.renewDeadlineMs).toBe(20_000);
    // A copy is the caller's own object: checked.
    expect(() => new LeaderElector({ ...checked })).toThrow(
      'invalid leader election option renewDeadlineMs: must be less than leaseDurationMs',
    );
  });

  it('gives every process a different default identity', () => {
    expect(defaultIdentity()).not.toBe(defaultIdentity());
  });
});
