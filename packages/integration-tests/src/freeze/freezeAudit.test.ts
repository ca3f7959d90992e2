import { describe, expect, it } from '@jest/globals';
import { acceptedWrites, decreases, longestUnserved, parseMicroTime, validityOf, within, type FreezeAuditLine } from './freezeAudit.js';

describe('freezeAudit', () => {
  it('keeps the microseconds of an audit timestamp', () => {
    expect(parseMicroTime('2026-12-01T16:10:00.123456Z')).toBeCloseTo(Date.parse('2026-12-01T16:10:00Z') + 123.456, 3);
    expect(parseMicroTime('2026-12-01T16:10:00Z')).toBe(Date.parse('2026-12-01T16:10:00Z'));
    expect(() => parseMicroTime('yesterday')).toThrow(/not an RFC 3339 UTC time: "yesterday"/);
  });

  it('takes from the API server audit only the successful configmap writes of a freeze replica', () => {
    const event = (over: Record<string, unknown>): string =>
      JSON.stringify({
        stage: 'ResponseComplete',
        verb: 'patch',
        userAgent: 'freeze/replica-a',
        objectRef: { resource: 'configmaps', namespace: 'ns', name: 'p-0-child' },
        responseStatus: { code: 200 },
        requestReceivedTimestamp: '2026-12-01T16:10:00.000500Z',
        ...over,
      });
    const log = [
      event({}),
      event({ stage: 'ResponseStarted' }),
      event({ verb: 'get' }),
      event({ userAgent: 'kubectl/v1' }),
      event({ responseStatus: { code: 409 } }),
      event({ objectRef: { resource: 'leases', namespace: 'ns', name: 'x' } }),
    ].join('\n');
    expect(acceptedWrites(log)).toEqual([
      { replica: 'replica-a', object: 'ns/p-0-child', receivedAt: Date.parse('2026-12-01T16:10:00Z') + 0.5 },
    ]);
  });

  it('rebuilds validity intervals per replica; the last one stays open', () => {
    const lines: FreezeAuditLine[] = [
      { replica: 'a', event: 'valid-from', at: 10 },
      { replica: 'b', event: 'valid-from', at: 12 },
      { replica: 'a', event: 'valid-until', at: 20 },
      { replica: 'a', event: 'valid-from', at: 30 },
    ];
    const v = validityOf(lines);
    expect(v.get('a')).toEqual([
      { from: 10, until: 20 },
      { from: 30, until: Number.POSITIVE_INFINITY },
    ]);
    expect([within(v.get('a'), 15), within(v.get('a'), 20), within(v.get('a'), 25), within(v.get('a'), 1e9)]).toEqual([
      true,
      false,
      false,
      true,
    ]);
    expect(within(v.get('c'), 15)).toBe(false);
    expect(() => validityOf([{ replica: 'a', event: 'valid-until', at: 1 }])).toThrow(/a logged valid-until 1 with no valid-from/);
  });

  it('finds a value that went down, against the highest value seen before', () => {
    expect(
      decreases([
        { key: 'k', value: 1 },
        { key: 'k', value: 3 },
        { key: 'j', value: 0 },
        { key: 'k', value: 2 },
        { key: 'k', value: 3 },
      ]),
    ).toEqual(['k: 3 -> 2']);
  });

  it('measures the longest wait of a touch for a child at its value or later; an unserved touch counts up to the end', () => {
    const touches = [
      { key: 'k', value: 1, at: 100 },
      { key: 'k', value: 2, at: 200 },
      { key: 'j', value: 1, at: 100 },
    ];
    expect(
      longestUnserved(
        touches,
        [
          { key: 'k', value: 2, at: 250 },
          { key: 'j', value: 1, at: 90 },
        ],
        1_000,
      ),
    ).toEqual({ ms: 150, key: 'k', at: 100 });
    expect(longestUnserved(touches, [{ key: 'k', value: 2, at: 250 }], 1_000)).toEqual({ ms: 900, key: 'j', at: 100 });
  });
});
