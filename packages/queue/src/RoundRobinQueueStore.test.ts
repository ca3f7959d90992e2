import { describe, expect, it } from '@jest/globals';
import type { QueuedItem } from './QueueStore.js';
import { RoundRobinQueueStore } from './RoundRobinQueueStore.js';

const entry = (key: string): QueuedItem<string> => ({ key, item: key, source: undefined });
const byLetter = (): RoundRobinQueueStore<string> => new RoundRobinQueueStore<string>((s) => s.charAt(0));

function drain(store: RoundRobinQueueStore<string>): string[] {
  const out: string[] = [];
  for (let e = store.shift(); e !== undefined; e = store.shift()) out.push(e.key);
  return out;
}

describe('RoundRobinQueueStore', () => {
  it('takes one entry per group in turn, each group oldest first', () => {
    const store = byLetter();
    for (const k of ['a1', 'a2', 'a3', 'b1', 'c1', 'c2']) store.push(entry(k));
    expect(store.size).toBe(6);
    expect(drain(store)).toEqual(['a1', 'b1', 'c1', 'a2', 'c2', 'a3']);
    expect(store.size).toBe(0);
  });

  it('hands back the very entry objects it was given', () => {
    const store = byLetter();
    const e = entry('a1');
    store.push(e);
    expect(store.shift()).toBe(e);
  });

  it('forgets an emptied group, so short-lived groups leave nothing behind', () => {
    const store = byLetter();
    for (let i = 0; i < 26; i++) store.push(entry(`${String.fromCharCode(97 + i)}1`));
    expect(store.groupCount()).toBe(26);
    drain(store);
    expect([store.groupCount(), store.groups(), store.groupLen('a')]).toEqual([0, [], 0]);
    expect(store.shift()).toBeUndefined();
  });

  it('lists groups in the order they will be served, a rejoining group last', () => {
    const store = byLetter();
    for (const k of ['a1', 'b1', 'c1', 'c2']) store.push(entry(k));
    expect(store.groups()).toEqual(['a', 'b', 'c']);
    store.shift(); // a1: group a leaves
    store.push(entry('a2'));
    expect(store.groups()).toEqual(['b', 'c', 'a']);
    expect([store.groupLen('a'), store.groupLen('c')]).toEqual([1, 2]);
  });
});
