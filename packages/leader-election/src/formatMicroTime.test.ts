import { describe, expect, it } from '@jest/globals';
import { formatMicroTime } from './formatMicroTime.js';

describe('formatMicroTime', () => {
  it('writes RFC 3339 with exactly six fractional digits in UTC, as the API server parses MicroTime', () => {
    expect(formatMicroTime(Date.parse('2026-12-01T10:00:00.123Z'))).toBe('2026-12-01T10:00:00.123000Z');
    expect(formatMicroTime(Date.parse('2026-12-01T10:00:00Z'))).toBe('2026-12-01T10:00:00.000000Z');
    expect(formatMicroTime(Date.parse('2026-12-01T10:00:00Z') + 0.9)).toBe('2026-12-01T10:00:00.000000Z');
  });

  it('rejects a time that is not finite', () => {
    expect(() => formatMicroTime(Number.NaN)).toThrow(RangeError);
  });
});
