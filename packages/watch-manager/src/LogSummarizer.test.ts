import { describe, expect, it } from '@jest/globals';
import { FakeClock, LogRecorder } from '@protean/core/testing';
import { LogSummarizer } from './LogSummarizer.js';

function setup() {
  const log = new LogRecorder('debug');
  const clock = new FakeClock();
  return { log, clock, summarizer: new LogSummarizer(log.logger, clock, 5000) };
}

describe('LogSummarizer', () => {
  it('logs the first line of a cause at once and the rest of the burst as one counted line when the interval ends', async () => {
    const { log, clock, summarizer } = setup();
    for (let i = 0; i < 20; i++)
      summarizer.note('warn', 'ECONNREFUSED https://s', `/v1/g${i % 4}`, { code: 'ECONNREFUSED' }, 'list/watch failing');
    expect(log.records).toHaveLength(1);
    expect(log.records[0]).toMatchObject({ level: 40, msg: 'list/watch failing', code: 'ECONNREFUSED', gvr: '/v1/g0' });
    await clock.advanceAsync(4999);
    expect(log.records).toHaveLength(1);
    await clock.advanceAsync(1);
    expect(log.records).toHaveLength(2);
    expect(log.records[1]).toMatchObject({
      level: 40,
      msg: 'list/watch failing (19 more like it from 4 GVR(s) in 5000 ms)',
      code: 'ECONNREFUSED',
      count: 19,
      gvrs: 4,
    });
  });

  it('keeps causes apart, writes no summary for a cause seen once, and logs a cause again at once after its interval', async () => {
    const { log, clock, summarizer } = setup();
    summarizer.note('warn', 'ECONNRESET', '/v1/a', {}, 'reset');
    summarizer.note('info', 'recovered', '/v1/a', {}, 'recovered');
    summarizer.note('info', 'recovered', '/v1/b', {}, 'recovered');
    expect(log.records.map((r) => r.msg)).toEqual(['reset', 'recovered']);
    await clock.advanceAsync(5000);
    expect(log.records.map((r) => r.msg)).toEqual(['reset', 'recovered', 'recovered (1 more like it from 1 GVR(s) in 5000 ms)']);
    expect(log.records[2]!.level).toBe(30);
    summarizer.note('warn', 'ECONNRESET', '/v1/a', {}, 'reset');
    expect(log.records.map((r) => r.msg).at(-1)).toBe('reset');
  });

  it('writes pending summaries at once on flush', () => {
    const { log, summarizer } = setup();
    summarizer.note('warn', 'k', '/v1/a', {}, 'm');
    summarizer.note('warn', 'k', '/v1/a', {}, 'm');
    summarizer.flush();
    expect(log.records.map((r) => r.msg)).toEqual(['m', 'm (1 more like it from 1 GVR(s) in 5000 ms)']);
  });

  it('refuses an interval that is not a positive number', () => {
    expect(() => new LogSummarizer(new LogRecorder().logger, new FakeClock(), 0)).toThrow(/intervalMs must be a finite number > 0, got 0/);
  });
});
