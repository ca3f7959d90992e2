import { describe, expect, it } from '@jest/globals';
import { BIG_CHUNK_CHARS, heldAfterGc } from './heldBytes.testkit.js';
import { sliceCopy } from './sliceCopy.js';

describe('sliceCopy', () => {
  it('gives the characters of text.slice, short and long, to the end or to an index', () => {
    const text = 'abcdefghijklmnopqrstuvwxyzżółw';
    for (const [start, end] of [
      [0, undefined],
      [3, undefined],
      [3, 5],
      [2, 27],
      [29, undefined],
      [30, undefined],
    ] as const) {
      expect(sliceCopy(text, start, end)).toBe(text.slice(start, end));
    }
  });

  it('does not keep the text it was cut from alive (a plain slice does)', () => {
    const tailOf = (cut: (text: string, start: number) => string): { tail: string; held: number } => {
      const before = heldAfterGc();
      // The text is made and cut in a frame of its own, so that nothing but the tail can hold it.
      const tail = ((): string => cut(`${'x'.repeat(BIG_CHUNK_CHARS)}{"metadata":{"name":"a","namespace":"b"`, BIG_CHUNK_CHARS))();
      return { tail, held: heldAfterGc() - before };
    };
    const slice = tailOf((text, start) => text.slice(start));
    const copy = tailOf((text, start) => sliceCopy(text, start));
    expect(copy.tail).toBe(slice.tail);
    // The measurement itself: a plain slice holds the whole text.
    expect(slice.held).toBeGreaterThan(BIG_CHUNK_CHARS / 2);
    expect(copy.held).toBeLessThan(BIG_CHUNK_CHARS / 4);
  });
});
