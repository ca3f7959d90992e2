import { describe, expect, it } from '@jest/globals';
import type { Clock, TimerHandle } from './clock.js';
import { LogSummarizer } from './LogSummarizer.js';
import { FakeClock, LogRecorder } from './testing/index.js';

function summarizer(intervalMs?: number): { s: LogSummarizer; clock: FakeClock; logs: LogRecorder } {
  const clock = new FakeClock();
  const logs = new LogRecorder('debug');
  const s = new LogSummarizer({ logger: logs.logger, clock, ...(intervalMs === undefined ? {} : { intervalMs }) });
  return { s, clock, logs };
}

describe('LogSummarizer', () => {
  it('logs the first line of a cause, counts its repeats and logs the count once at the end of the interval (default 10 s)', () => {
    const { s, clock, logs } = summarizer();
    for (let i = 0; i < 40; i++) s.log('ECONNRESET', { item: `ns/app-${i}` }, `failed: ns/app-${i}`);
    expect(logs.records.map((r) => r.msg)).toEqual(['failed: ns/app-0']);
    expect(logs.records[0]).toMatchObject({ level: 40, cause: 'ECONNRESET', item: 'ns/app-0' });
    clock.advance(9_999);
    expect(logs.records).toHaveLength(1);
    clock.advance(1);
    expect(logs.records).toHaveLength(2);
    expect(logs.records[1]).toMatchObject({
      level: 40,
      cause: 'ECONNRESET',
      repeats: 39,
      intervalMs: 10_000,
      item: 'ns/app-1',
      msg: 'ECONNRESET: 39 more like this in the last 10000 ms',
    });
  });

  it('keeps one line per cause: two causes in one interval give two first lines and two counts', () => {
    const { s, clock, logs } = summarizer(1_000);
    for (let i = 0; i < 5; i++) {
      s.log('ECONNRESET', {}, 'reset');
      s.log('ECONNREFUSED', {}, 'refused');
    }
    clock.advance(1_000);
    expect(logs.records.map((r) => r.msg)).toEqual([
      'reset',
      'refused',
      'ECONNRESET: 4 more like this in the last 1000 ms',
      'ECONNREFUSED: 4 more like this in the last 1000 ms',
    ]);
  });

  it('while a cause keeps repeating, logs only its count each interval; after a quiet interval, its next line in full', () => {
    const { s, clock, logs } = summarizer(1_000);
    s.log('GOAWAY', {}, 'goaway');
    for (let interval = 0; interval < 3; interval++) {
      s.log('GOAWAY', {}, 'goaway');
      s.log('GOAWAY', {}, 'goaway');
      clock.advance(1_000);
    }
    expect(logs.records.map((r) => r['repeats'] ?? r.msg)).toEqual(['goaway', 2, 2, 2]);
    clock.advance(1_000); // quiet: nothing to count, the cause is forgotten
    expect(logs.records).toHaveLength(4);
    expect(clock.pendingTimers()).toBe(0);
    s.log('GOAWAY', {}, 'goaway again');
    expect(logs.records.at(-1)!.msg).toBe('goaway again');
  });

  it('logs nothing more for a cause seen once, and leaves no timer after a quiet interval', () => {
    const { s, clock, logs } = summarizer(1_000);
    s.log('ETIMEDOUT', {}, 'timed out');
    clock.advance(5_000);
    expect(logs.records.map((r) => r.msg)).toEqual(['timed out']);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('flush logs the pending counts at once and clears its timer', () => {
    const { s, clock, logs } = summarizer();
    s.log('ECONNRESET', {}, 'reset');
    s.log('ECONNRESET', {}, 'reset');
    s.flush();
    expect(logs.records.map((r) => r.msg)).toEqual(['reset', 'ECONNRESET: 1 more like this in the last 10000 ms']);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('counts distinct sources, and logs a cause at its own level when the line gives one', () => {
    const { s, clock, logs } = summarizer(5_000);
    for (let i = 0; i < 20; i++) {
      s.log('ECONNREFUSED https://s', { code: 'ECONNREFUSED', gvr: `/v1/g${i % 4}` }, 'list/watch failing', { source: `/v1/g${i % 4}` });
    }
    s.log('recovered', {}, 'recovered', { level: 'info', source: '/v1/a' });
    s.log('recovered', {}, 'recovered', { level: 'info', source: '/v1/b' });
    expect(logs.records.map((r) => [r.level, r.msg])).toEqual([
      [40, 'list/watch failing'],
      [30, 'recovered'],
    ]);
    expect(logs.records[0]).toMatchObject({ code: 'ECONNREFUSED', gvr: '/v1/g0', cause: 'ECONNREFUSED https://s' });
    clock.advance(5_000);
    expect(logs.records.slice(2)).toEqual([
      expect.objectContaining({
        level: 40,
        msg: 'ECONNREFUSED https://s: 19 more like this from 4 source(s) in the last 5000 ms',
        code: 'ECONNREFUSED',
        repeats: 19,
        sources: 4,
      }),
      expect.objectContaining({
        level: 30,
        msg: 'recovered: 1 more like this from 1 source(s) in the last 5000 ms',
        repeats: 1,
        sources: 1,
      }),
    ]);
  });

  it('uses the per-instance level for lines that give none', () => {
    const logs = new LogRecorder('debug');
    const s = new LogSummarizer({ logger: logs.logger, clock: new FakeClock(), level: 'info' });
    s.log('ETIMEDOUT', {}, 'timed out');
    s.log('ETIMEDOUT', {}, 'timed out');
    s.flush();
    expect(logs.records.map((r) => [r.level, r.msg])).toEqual([
      [30, 'timed out'],
      [30, 'ETIMEDOUT: 1 more like this in the last 10000 ms'],
    ]);
  });

  it('unrefs its interval timer, so pending counts never keep the process alive', () => {
    const unrefd: boolean[] = [];
    const fake = new FakeClock();
    const clock: Clock = {
      now: () => fake.now(),
      clearTimeout: (h) => fake.clearTimeout((h as { inner: TimerHandle }).inner),
      setTimeout: (fn, delayMs) => {
        const handle = { inner: fake.setTimeout(fn, delayMs), unref: () => unrefd.push(true) };
        unrefd.push(false);
        return handle;
      },
    };
    const s = new LogSummarizer({ logger: new LogRecorder().logger, clock });
    s.log('EPIPE', {}, 'broken pipe');
    expect(unrefd).toEqual([false, true]);
  });

  it('refuses an interval that is not a positive finite number, naming it', () => {
    const logger = new LogRecorder().logger;
    expect(() => new LogSummarizer({ logger, intervalMs: 0 })).toThrow('intervalMs must be a finite number > 0, got 0');
  });
});
