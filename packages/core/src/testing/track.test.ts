import { describe, expect, it } from '@jest/globals';
import { Deferred } from './Deferred.js';
import { flushMicrotasks } from './FakeClock.js';
import { track } from './track.js';

describe('track', () => {
  it('reports pending, then the value a promise resolved with', async () => {
    const gate = new Deferred<number>();
    const t = track(gate.promise);
    expect([t.state, t.settled(), t.value]).toEqual(['pending', false, undefined]);
    gate.resolve(7);
    await flushMicrotasks();
    expect([t.state, t.settled(), t.value, t.error]).toEqual(['resolved', true, 7, undefined]);
  });

  it('reports the reason a promise rejected with, handling the rejection', async () => {
    const err = new Error('refused');
    const t = track(Promise.reject(err));
    await flushMicrotasks();
    expect([t.state, t.settled(), t.error]).toEqual(['rejected', true, err]);
  });
});
