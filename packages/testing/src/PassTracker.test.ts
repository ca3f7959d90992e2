import { describe, expect, it } from '@jest/globals';
import type { Handler, ReconcileContext } from '@protean/core';
import { PassTracker } from './PassTracker.js';

const ctx = {} as ReconcileContext;
const key = { namespace: 'default', name: 'a' };

describe('PassTracker', () => {
  it('is quiet before any pass, busy while one runs, and quiet only once the time has passed after the last', async () => {
    let now = 1_000;
    const passes = new PassTracker(() => now);
    expect(passes.quietFor(500)).toBe(true);
    let finish!: () => void;
    const handler = passes.wrap(() => new Promise<void>((resolve) => (finish = resolve)));
    const pass = handler(key, ctx);
    expect(passes.inFlight).toBe(1);
    expect(passes.quietFor(0)).toBe(false);
    now += 10_000;
    expect(passes.quietFor(500)).toBe(false);
    finish();
    await pass;
    expect(passes.inFlight).toBe(0);
    expect(passes.quietFor(500)).toBe(false);
    now += 499;
    expect(passes.quietFor(500)).toBe(false);
    now += 1;
    expect(passes.quietFor(500)).toBe(true);
    expect(passes.started).toBe(1);
  });

  it('counts a pass that throws as ended, and the error reaches the caller', async () => {
    let now = 0;
    const passes = new PassTracker(() => now);
    const failing: Handler = async () => {
      throw new Error('boom');
    };
    await expect(passes.wrap(failing)(key, ctx)).rejects.toThrow('boom');
    expect(passes.inFlight).toBe(0);
    expect(passes.quietFor(1)).toBe(false);
    now += 1;
    expect(passes.quietFor(1)).toBe(true);
  });

  it('counts overlapping passes of several wrapped handlers together', async () => {
    const passes = new PassTracker(() => 0);
    const gates: Array<() => void> = [];
    const slow: Handler = () => new Promise<void>((resolve) => gates.push(resolve));
    const a = passes.wrap(slow)(key, ctx);
    const b = passes.wrap(slow)({ namespace: 'default', name: 'b' }, ctx);
    expect(passes.inFlight).toBe(2);
    gates[0]!();
    await a;
    expect(passes.inFlight).toBe(1);
    gates[1]!();
    await b;
    expect(passes.inFlight).toBe(0);
    expect(passes.started).toBe(2);
  });
});
