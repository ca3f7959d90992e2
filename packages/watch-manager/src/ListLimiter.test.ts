import { describe, expect, it } from '@jest/globals';
import { ListLimiter } from './ListLimiter.js';

/** A list the test ends by hand. */
function deferred(): { promise: Promise<string>; resolve: (v: string) => void; reject: (e: Error) => void } {
  let resolve!: (v: string) => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<string>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const turns = async (n = 5): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise<void>((r) => setImmediate(r));
};

describe('ListLimiter', () => {
  it('runs at most `limit` lists at once, the rest in arrival order as slots free up', async () => {
    const limiter = new ListLimiter(2);
    const lists = Array.from({ length: 5 }, () => deferred());
    const started: number[] = [];
    const results = lists.map((d, i) =>
      limiter.run(() => {
        started.push(i);
        return d.promise;
      }),
    );
    await turns();
    expect(started).toEqual([0, 1]);
    expect([limiter.active, limiter.queued]).toEqual([2, 3]);

    lists[1]!.resolve('one');
    await turns();
    expect(started).toEqual([0, 1, 2]);
    expect([limiter.active, limiter.queued]).toEqual([2, 2]);

    lists[0]!.resolve('zero');
    lists[2]!.resolve('two');
    await turns();
    expect(started).toEqual([0, 1, 2, 3, 4]);
    lists[3]!.resolve('three');
    lists[4]!.resolve('four');
    await expect(Promise.all(results)).resolves.toEqual(['zero', 'one', 'two', 'three', 'four']);
    expect([limiter.active, limiter.queued]).toEqual([0, 0]);
  });

  it('frees the slot of a list that fails, and hands the failure to its caller', async () => {
    const limiter = new ListLimiter(1);
    const first = deferred();
    const failed = limiter.run(() => first.promise);
    let secondRan = false;
    const second = limiter.run(async () => {
      secondRan = true;
      return 'second';
    });
    await turns();
    expect(secondRan).toBe(false);
    first.reject(new Error('HTTP 500 on LIST /api/v1/configmaps'));
    await expect(failed).rejects.toThrow('HTTP 500 on LIST /api/v1/configmaps');
    await expect(second).resolves.toBe('second');
    expect(limiter.active).toBe(0);
  });

  it('frees the slot of a list that throws before returning a promise', async () => {
    const limiter = new ListLimiter(1);
    await expect(
      limiter.run(() => {
        throw new Error('bad query');
      }),
    ).rejects.toThrow('bad query');
    await expect(limiter.run(async () => 'next')).resolves.toBe('next');
  });

  it('with Infinity, never holds a list back', async () => {
    const limiter = new ListLimiter(Infinity);
    const lists = Array.from({ length: 50 }, () => deferred());
    let started = 0;
    const all = lists.map((d) =>
      limiter.run(() => {
        started++;
        return d.promise;
      }),
    );
    await turns();
    expect(started).toBe(50);
    for (const d of lists) d.resolve('ok');
    await Promise.all(all);
  });

  it.each([0, -1, 1.5, Number.NaN, '4' as unknown as number])('refuses %p as a limit, naming it', (limit) => {
    expect(() => new ListLimiter(limit)).toThrow(
      new RangeError(`listConcurrency must be an integer >= 1 or Infinity, got ${String(limit)}`),
    );
  });
});
