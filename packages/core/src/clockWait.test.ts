import { describe, expect, it } from '@jest/globals';
import { deadlineSignal, sleepOrWake, Waker } from './clockWait.js';
import { FakeClock, flushMicrotasks } from './testing/index.js';

describe('sleepOrWake', () => {
  it('resolves after the time on the clock, or at once when woken or aborted', async () => {
    const clock = new FakeClock();
    let slept = false;
    void sleepOrWake(clock, 1_000).done.then(() => (slept = true));
    clock.advance(999);
    await flushMicrotasks();
    expect(slept).toBe(false);
    clock.advance(1);
    await flushMicrotasks();
    expect(slept).toBe(true);

    const woken = sleepOrWake(clock, 1_000);
    woken.wake();
    await woken.done;
    const abort = new AbortController();
    const aborted = sleepOrWake(clock, 1_000, abort.signal);
    abort.abort();
    await aborted.done;
    expect(clock.pendingTimers()).toBe(0);
  });
});

describe('deadlineSignal', () => {
  it('aborts after the deadline naming what took too long, or with its parent', () => {
    const clock = new FakeClock();
    const late = deadlineSignal(clock, 500, 'renewing the lease');
    clock.advance(500);
    expect((late.signal.reason as Error).message).toBe('renewing the lease took longer than 500 ms');
    const parent = new AbortController();
    const early = deadlineSignal(clock, 500, 'listing', parent.signal);
    parent.abort(new Error('stopping'));
    expect((early.signal.reason as Error).message).toBe('stopping');
    early.dispose();
    expect(clock.pendingTimers()).toBe(0);
  });
});

describe('Waker', () => {
  it('cuts a wait short and says so', async () => {
    const clock = new FakeClock();
    const waker = new Waker(clock, false);
    const waited = waker.wait(10_000);
    await flushMicrotasks();
    waker.wake();
    expect(await waited).toBe(true);
    const timedOut = waker.wait(100);
    clock.advance(100);
    expect(await timedOut).toBe(false);
  });

  it('drops a wake while nobody waits, unless it remembers', async () => {
    const clock = new FakeClock();
    const forgetful = new Waker(clock, false);
    forgetful.wake();
    const waited = forgetful.wait(100);
    await flushMicrotasks();
    clock.advance(100);
    expect(await waited).toBe(false);

    const remembering = new Waker(clock, true);
    remembering.wake();
    expect(await remembering.wait(100)).toBe(true);
  });
});
