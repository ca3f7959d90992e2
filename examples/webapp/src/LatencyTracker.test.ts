import { describe, expect, it } from '@jest/globals';
import { LatencyTracker } from './LatencyTracker.js';

/** A tracker on a hand-driven clock. */
function tracker(): { t: LatencyTracker; at: (ms: number) => void } {
  let now = 0;
  return { t: new LatencyTracker(() => now), at: (ms) => (now = ms) };
}

describe('LatencyTracker', () => {
  it('measures from the API response to the next handler call of each affected instance', async () => {
    const { t, at } = tracker();
    at(100);
    await t.track(['a', 'b'], async () => at(110));
    at(115);
    t.handlerStarted('a');
    at(130);
    t.handlerStarted('b');
    t.handlerStarted('b'); // a second call is not a second sample

    expect(t.stats()).toEqual({ count: 2, p50Ms: 5, p99Ms: 20, maxMs: 20 });
    expect(t.pendingCount()).toBe(0);
  });

  it('counts 0 when the handler started while the request was still in flight', async () => {
    const { t, at } = tracker();
    at(100);
    await t.track(['a'], async () => {
      at(105);
      t.handlerStarted('a'); // the watch event overtook the response
      at(110);
    });

    expect(t.stats().count).toBe(1);
    expect(t.stats().p50Ms).toBe(0);
    expect(t.pendingCount()).toBe(0);
  });

  it('ignores handler calls that no change asked for, and keeps unanswered changes pending', async () => {
    const { t, at } = tracker();
    t.handlerStarted('a');
    at(10);
    await t.track(['b'], async () => {});

    expect(t.stats()).toEqual({ count: 0, p50Ms: undefined, p99Ms: undefined, maxMs: undefined });
    expect(t.pendingCount()).toBe(1);
  });

  it('reports nearest-rank percentiles', async () => {
    const { t, at } = tracker();
    for (let i = 1; i <= 100; i++) {
      at(1000 * i);
      await t.track([`k${i}`], async () => {});
      at(1000 * i + i);
      t.handlerStarted(`k${i}`);
    }
    expect(t.stats()).toEqual({ count: 100, p50Ms: 50, p99Ms: 99, maxMs: 100 });
  });
});
