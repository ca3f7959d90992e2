import { describe, expect, it } from '@jest/globals';
import { SelectorError } from './SelectorError.js';

describe('SelectorError', () => {
  it('quotes string input and carries the position', () => {
    const err = new SelectorError('a in (b', 'expected ")" at position 7', { position: 7 });
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('SelectorError');
    expect(err.message).toBe('invalid label selector "a in (b": expected ")" at position 7');
    expect(err.input).toBe('a in (b');
    expect(err.position).toBe(7);
    expect(err.path).toBeUndefined();
    expect(err.problem).toBe('expected ")" at position 7');
  });

  it('names the field path for LabelSelector input and has no position', () => {
    const err = new SelectorError('{"matchLabels":{"a":1}}', 'value must be a string', { path: 'matchLabels["a"]' });
    expect(err.message).toBe('invalid LabelSelector {"matchLabels":{"a":1}} at matchLabels["a"]: value must be a string');
    expect(err.position).toBeUndefined();
    expect(err.path).toBe('matchLabels["a"]');
  });

  it('escapes control characters of the input in the message', () => {
    const err = new SelectorError('a=b\nc', 'x at position 4', { position: 4 });
    expect(err.message).toContain('"a=b\\nc"');
  });
});
