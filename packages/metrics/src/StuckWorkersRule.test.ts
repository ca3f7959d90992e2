import { describe, expect, it } from '@jest/globals';
import type { InFlightPass, QueueStatus } from '@protean/core/internal';
import { StuckWorkersRule } from './StuckWorkersRule.js';

const pass = (name: string, ageMs: number): InFlightPass => ({
  parent: 'demo.protean.dev/v1/webapps',
  namespace: 'ns',
  name,
  startedAt: '2026-12-01T00:00:00.000Z',
  ageMs,
});

const queue = (workers: number, reconcileTimeoutMs: number, ...inFlight: InFlightPass[]): QueueStatus => ({
  depth: 0,
  workers,
  reconcileTimeoutMs,
  inFlight,
  recentFailures: [],
});

describe('StuckWorkersRule', () => {
  it('counts a pass as stuck from reconcileTimeoutMs plus the grace period', () => {
    const rule = new StuckWorkersRule({ stuckGraceMs: 500 });
    expect(rule.assess(queue(1, 1_000, pass('a', 1_499))).stuck).toBe(false);
    const verdict = rule.assess(queue(1, 1_000, pass('a', 1_500)));
    expect(verdict).toMatchObject({ stuck: true, thresholdMs: 1_500, stuckPasses: [pass('a', 1_500)] });
    expect(verdict.reason).toBe(
      'every worker (1) is busy with a pass older than reconcileTimeoutMs 1000 ms + stuckGraceMs 500 ms: demo.protean.dev/v1/webapps ns/a for 2 s',
    );
  });

  it('passes while at least one worker is free or busy with a young pass', () => {
    const rule = new StuckWorkersRule({ stuckGraceMs: 0 });
    expect(rule.assess(queue(2, 1_000, pass('a', 5_000))).stuck).toBe(false);
    expect(rule.assess(queue(2, 1_000, pass('a', 5_000), pass('b', 10))).stuck).toBe(false);
    const both = rule.assess(queue(2, 1_000, pass('a', 5_000), pass('b', 1_000)));
    expect(both.stuck).toBe(true);
    expect(both.reason).toContain('ns/a for 5 s, demo.protean.dev/v1/webapps ns/b for 1 s');
    // A standby runs no pass.
    expect(rule.assess(queue(2, 1_000)).stuck).toBe(false);
  });

  it('is off without a reconcile timeout unless stuckAfterMs is set', () => {
    expect(new StuckWorkersRule().assess(queue(1, 0, pass('a', 1e9)))).toEqual({
      stuck: false,
      thresholdMs: undefined,
      stuckPasses: [],
      reason: undefined,
    });
    const rule = new StuckWorkersRule({ stuckAfterMs: 60_000 });
    expect(rule.assess(queue(1, 0, pass('a', 59_999))).stuck).toBe(false);
    expect(rule.assess(queue(1, 0, pass('a', 60_000))).reason).toBe(
      'every worker (1) is busy with a pass older than stuckAfterMs 60000 ms: demo.protean.dev/v1/webapps ns/a for 60 s',
    );
  });

  it('names a bad option', () => {
    expect(() => new StuckWorkersRule({ stuckGraceMs: -1 })).toThrow('StuckWorkersRule: stuckGraceMs must be a finite number >= 0, got -1');
    expect(() => new StuckWorkersRule({ stuckAfterMs: Number.NaN })).toThrow(/stuckAfterMs must be a finite number/);
  });
});
