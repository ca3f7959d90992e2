import { describe, expect, it } from '@jest/globals';
import { RingBuffer } from './RingBuffer.js';

describe('RingBuffer', () => {
  it('returns values in insertion order across growth and wrap-around', () => {
    const ring = new RingBuffer<number>();
    const out: number[] = [];
    // Interleave pushes and shifts so the head wraps before the buffer grows.
    for (let i = 0; i < 10; i++) ring.push(i);
    for (let i = 0; i < 8; i++) out.push(ring.shift()!);
    for (let i = 10; i < 100; i++) ring.push(i);
    expect(ring.size).toBe(92);
    for (let v = ring.shift(); v !== undefined; v = ring.shift()) out.push(v);
    expect(out).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(ring.size).toBe(0);
  });

  it('keeps order while shrinking after a burst', () => {
    const ring = new RingBuffer<number>();
    for (let i = 0; i < 10_000; i++) ring.push(i);
    for (let i = 0; i < 9_990; i++) expect(ring.shift()).toBe(i);
    ring.push(10_000);
    expect([ring.shift(), ring.shift()]).toEqual([9_990, 9_991]);
    expect(ring.size).toBe(9);
  });

  it('returns undefined when empty and after clear', () => {
    const ring = new RingBuffer<string>();
    expect(ring.shift()).toBeUndefined();
    ring.push('a');
    ring.clear();
    expect(ring.size).toBe(0);
    expect(ring.shift()).toBeUndefined();
  });

  it('lists values oldest first across wrap-around without removing them', () => {
    const ring = new RingBuffer<number>();
    for (let i = 0; i < 12; i++) ring.push(i);
    for (let i = 0; i < 10; i++) ring.shift();
    for (let i = 12; i < 20; i++) ring.push(i);
    expect([...ring.values()]).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
    expect(ring.size).toBe(10);
    expect(ring.shift()).toBe(10);
  });
});
