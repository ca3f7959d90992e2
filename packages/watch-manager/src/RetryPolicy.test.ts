import { describe, expect, it } from '@jest/globals';
import { LogSummarizer } from '@protean/core';
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
  it('relists at once from "" on the first two 410s, and backs off when 410s repeat without progress; a lost server starts over', () => {
    const { policy } = setup();
    expect(policy.onFailure(http(410))).toEqual({ relist: true, forgetResourceVersion: true, delayMs: 0 });
    expect(policy.onFailure(http(410))).toEqual({ relist: true, forgetResourceVersion: true, delayMs: 0 });
    expect(policy.onFailure(http(410))).toEqual({ relist: true, forgetResourceVersion: true, delayMs: 100 });
    // The server went away and came back: its 410s are a new run.
    policy.onFailure(new KubernetesRequestError(gvr, 'WATCH', 'connect ECONNREFUSED', { reason: 'NetworkError' }));
    expect(policy.onFailure(http(410)).delayMs).toBe(0);
    expect(policy.onFailure(http(410)).delayMs).toBe(0);
    expect(policy.onFailure(http(410)).delayMs).toBeGreaterThan(0);
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

  it('logs a network failure as one line with its code, server and socket message, without a stack', () => {
    const { policy, log } = setup();
    const sys = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    policy.onFailure(
      new KubernetesRequestError(gvr, 'WATCH', 'request failed: GET /api/v1/configmaps?watch=true: read ECONNRESET', {
        reason: 'NetworkError',
        server: 'https://10.0.0.1:6443',
        cause: sys,
      }),
    );
    expect(log.records).toHaveLength(1);
    expect(log.records[0]).toMatchObject({
      level: 40,
      msg: 'list/watch failing (ECONNRESET); retrying with backoff',
      code: 'ECONNRESET',
      server: 'https://10.0.0.1:6443',
      err: 'read ECONNRESET',
    });
    expect(JSON.stringify(log.records[0])).not.toContain('stack');
  });

  it('summarizes the same network cause across 20 informers, and their recoveries, into a handful of lines', async () => {
    const log = new LogRecorder('info');
    const clock = new FakeClock();
    const summarizer = new LogSummarizer({ logger: log.logger, clock, intervalMs: 5000 });
    const policies = Array.from(
      { length: 20 },
      (_, i) => new RetryPolicy(log.logger, { clock, random: () => 0.5 }, { summarizer, gvr: `example.com/v1/kind${i}` }),
    );
    const goaway = (): KubernetesRequestError =>
      new KubernetesRequestError(gvr, 'WATCH', 'stream failed', {
        reason: 'ConnectionReset',
        server: 'https://api:6443',
        cause: Object.assign(new Error('New streams cannot be created after receiving a GOAWAY'), { code: 'ERR_HTTP2_GOAWAY_SESSION' }),
      });
    for (const p of policies) for (let i = 0; i < 4; i++) p.onFailure(goaway());
    await clock.advanceAsync(3000);
    for (const p of policies) p.succeeded();
    await clock.advanceAsync(5000);
    expect(log.records.map((r) => r.msg)).toEqual([
      'list/watch failing (GOAWAY); retrying with backoff',
      'list/watch recovered',
      'GOAWAY https://api:6443: 19 more like this from 19 source(s) in the last 5000 ms',
      'recovered GOAWAY https://api:6443: 19 more like this from 19 source(s) in the last 5000 ms',
    ]);
    expect(log.records.map((r) => r.level)).toEqual([40, 30, 40, 30]);
    expect(log.records[2]).toMatchObject({ code: 'GOAWAY', server: 'https://api:6443', repeats: 19, sources: 19 });
  });
});
