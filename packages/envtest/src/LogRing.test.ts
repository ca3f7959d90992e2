import { describe, expect, it } from '@jest/globals';
import { LogRing } from './LogRing.js';

describe('LogRing', () => {
  it('keeps the last lines across chunks that split lines anywhere', () => {
    const ring = new LogRing(2);
    ring.write('one\ntw');
    ring.write('o\nthree\nfou');
    expect(ring.text()).toBe('two\nthree\nfou');
  });

  it('searches only the lines written since a mark', () => {
    const ring = new LogRing(3);
    ring.write('bind: address already in use\n');
    const mark = ring.mark();
    ring.write('starting again\n');
    expect(ring.includes('address already in use')).toBe(true);
    expect(ring.includes('address already in use', mark)).toBe(false);
    ring.write('a\nb\nc\nd\n');
    expect(ring.includes('starting again', mark)).toBe(false);
    expect(ring.includes('d', mark)).toBe(true);
  });
});
