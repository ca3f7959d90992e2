import { describe, expect, it } from '@jest/globals';
import { FakeClock, LogRecorder } from '@protean/core/testing';
import { KubernetesRequestError } from './KubernetesRequestError.js';
import { RetryPolicy } from './RetryPolicy.js';

const gvr = { group: '', version: 'v1', resource: 'configmaps' };
const http = (status: number, retryAfter?: string): KubernetesRequestError =>
  KubernetesRequestError.fromResponse(gvr, 'WATCH', status, retryAfter, JSON.stringify({ code: status, message: 'x' }));
const net = (reason: string): KubernetesRequestError => new KubernetesRequestError(gvr, 'WATCH', reason, { reason });

function setup() {
  const log = new LogRecorder('debug');
  const clock = new FakeClock();
  const policy = new RetryPolicy(log.logger, {
    clock,
    random: () => 0.5,
    backoff: { initialMs: 100, maxMs: 1000, resetAfterMs: 60_000 },
    notServedMaxBackoffMs: 5000,
  });
  return { policy, log, clock };
}

describe('RetryPolicy', () => {
  it('relists at once from "" on a first 410, and backs off when 410s repeat without progress', () => {
    const { policy } = setup();
    expect(policy.onFailure(http(410))).toEqual({ relist: true, forgetResourceVersion: true, delayMs: 0 });
    expect(policy.onFailure(http(410))).toEqual({ relist: true, forgetResourceVersion: true, delayMs: 100 });
    policy.onProgress();
    expect(policy.onFailure(KubernetesRequestError.fromStatus(gvr, { code: 410, reason: 'Expired' })).delayMs).toBe(0);
  });

  it('waits Retry-After on 429 and retries the same step', () => {
    const { policy } = setup();
    expect(policy.onFailure(http(429, '2'))).toEqual({ relist: false, forgetResourceVersion: false, delayMs: 2000 });
    expect(policy.onFailure(http(429))).toEqual({ relist: false, forgetResourceVersion: false, delayMs: 100 });
  });

  it('backs off towards minutes, not the usual cap, while the resource is not served', () => {
    const { policy } = setup();
    const delays = Array.from({ length: 8 }, () => policy.onFailure(http(404)).delayMs);
    expect(delays).toEqual([100, 200, 400, 800, 1600, 3200, 5000, 5000]);
    expect(policy.onFailure(http(403)).relist).toBe(true);
  });

  it('re-watches without relisting after network failures, at once after an inactivity timeout', () => {
    const { policy } = setup();
    expect(policy.onFailure(net('NetworkError'))).toEqual({ relist: false, forgetResourceVersion: false, delayMs: 100 });
    expect(policy.onFailure(net('InactivityTimeout'))).toEqual({ relist: false, forgetResourceVersion: false, delayMs: 0 });
  });

  it('relists after other server errors, and from "" after a too large resourceVersion', () => {
    const { policy } = setup();
    expect(policy.onFailure(http(500))).toEqual({ relist: true, forgetResourceVersion: false, delayMs: 100 });
    const tooLarge = KubernetesRequestError.fromResponse(
      gvr,
      'LIST',
      504,
      undefined,
      JSON.stringify({ message: 'Too large resource version: 9, current: 3' }),
    );
    expect(policy.onFailure(tooLarge)).toMatchObject({ relist: true, forgetResourceVersion: true });
  });

  it('warns once per outage and logs the recovery', () => {
    const { policy, log } = setup();
    const levels = (): number[] => log.records.map((r) => r.level);
    policy.onFailure(http(404));
    policy.onFailure(http(404));
    policy.onFailure(http(404));
    expect(levels().filter((l) => l === 40)).toHaveLength(1);
    policy.succeeded();
    expect(levels().filter((l) => l === 30)).toHaveLength(1);
    policy.onFailure(http(500));
    expect(levels().filter((l) => l === 40)).toHaveLength(2);
  });
});
