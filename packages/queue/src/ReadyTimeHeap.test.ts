import { describe, expect, it } from '@jest/globals';
import { ReadyTimeHeap } from './ReadyTimeHeap.js';

function drain(heap: ReadyTimeHeap<string>, now: number): string[] {
  const out: string[] = [];
  for (let w = heap.popReady(now); w !== undefined; w = heap.popReady(now)) out.push(w.item);
  return out;
}

describe('ReadyTimeHeap', () => {
  it('pops items in ready-time order, ties in insertion order', () => {
    const heap = new ReadyTimeHeap<string>();
    const times = [50, 10, 40, 10, 30, 20, 60, 5];
    times.forEach((t, i) => heap.schedule(`k${i}`, `k${i}@${t}`, t));
    expect(heap.earliest()).toBe(5);
    expect(drain(heap, 100)).toEqual(['k7@5', 'k1@10', 'k3@10', 'k5@20', 'k4@30', 'k2@40', 'k0@50', 'k6@60']);
  });

  it('pops only items whose ready time has come', () => {
    const heap = new ReadyTimeHeap<string>();
    heap.schedule('a', 'a', 10);
    heap.schedule('b', 'b', 20);
    expect(drain(heap, 9)).toEqual([]);
    expect(drain(heap, 10)).toEqual(['a']);
    expect(heap.size).toBe(1);
    expect(heap.earliest()).toBe(20);
  });

  it('keeps the earlier ready time when a key is scheduled twice', () => {
    const heap = new ReadyTimeHeap<string>();
    heap.schedule('a', 'a', 30);
    heap.schedule('b', 'b', 20);
    heap.schedule('a', 'a-later', 50);
    expect(heap.size).toBe(2);
    expect(heap.earliest()).toBe(20);
    heap.schedule('a', 'a-earlier', 10);
    expect(heap.earliest()).toBe(10);
    // The first scheduled value is kept; only its ready time moves.
    expect(drain(heap, 100)).toEqual(['a', 'b']);
  });

  it('stays a valid heap under many random operations', () => {
    const heap = new ReadyTimeHeap<string>();
    let seed = 42;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const expected = new Map<string, number>();
    for (let i = 0; i < 2_000; i++) {
      const key = `k${Math.floor(random() * 500)}`;
      const at = Math.floor(random() * 10_000);
      heap.schedule(key, key, at);
      expected.set(key, Math.min(at, expected.get(key) ?? Infinity));
    }
    const popped: number[] = [];
    for (let w = heap.popReady(Infinity); w !== undefined; w = heap.popReady(Infinity)) {
      expect(w.readyAt).toBe(expected.get(w.key));
      popped.push(w.readyAt);
    }
    expect(popped).toHaveLength(expected.size);
    expect(popped).toEqual([...popped].sort((a, b) => a - b));
  });
});
