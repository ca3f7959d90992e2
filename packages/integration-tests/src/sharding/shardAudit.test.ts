import { describe, expect, it } from '@jest/globals';
import { overlaps, parseAudit, passesOf, type AuditLine } from './shardAudit.js';

const line = (replica: string, instance: string, event: 'start' | 'end', at: number, generation = 1): AuditLine => ({
  replica,
  instance,
  event,
  at,
  generation,
});

describe('the shard audit', () => {
  it('pairs starts and ends per replica and instance, in order, also when lines of several replicas interleave', () => {
    const passes = passesOf([
      line('a', 'ns/p', 'start', 1),
      line('b', 'ns/q', 'start', 2),
      line('a', 'ns/p', 'end', 3),
      line('a', 'ns/p', 'start', 4, 2),
      line('b', 'ns/q', 'end', 5),
      line('a', 'ns/p', 'end', 6, 2),
    ]);
    expect(passes).toEqual([
      { replica: 'a', instance: 'ns/p', start: 1, end: 3, generation: 1, open: false },
      { replica: 'b', instance: 'ns/q', start: 2, end: 5, generation: 1, open: false },
      { replica: 'a', instance: 'ns/p', start: 4, end: 6, generation: 2, open: false },
    ]);
    expect(overlaps(passes)).toEqual([]);
  });

  it('counts passes of one instance on two replicas that overlap, and not back-to-back ones', () => {
    const passes = passesOf([
      line('a', 'ns/p', 'start', 10),
      line('b', 'ns/p', 'start', 15),
      line('a', 'ns/p', 'end', 20),
      line('b', 'ns/p', 'end', 25),
      line('c', 'ns/p', 'start', 25),
      line('c', 'ns/p', 'end', 30),
    ]);
    expect(overlaps(passes)).toHaveLength(1);
    expect(overlaps(passes)[0]).toMatch(/^ns\/p: a \[10\.0, 20\.0\] and b \[15\.0, 25\.0\]$/);
  });

  it("ends a killed replica's unfinished pass at the kill, so a later pass elsewhere does not overlap it, and an earlier one does", () => {
    const lines = [line('a', 'ns/p', 'start', 10), line('b', 'ns/p', 'start', 50), line('b', 'ns/p', 'end', 60)];
    expect(overlaps(passesOf(lines, new Map([['a', 40]])))).toEqual([]);
    expect(overlaps(passesOf(lines, new Map([['a', 55]])))).toHaveLength(1);
    // Not killed: still running, so it overlaps anything after it.
    expect(overlaps(passesOf(lines))).toHaveLength(1);
  });

  it('rejects a line that is not an audit line, naming it', () => {
    expect(() => parseAudit('{"replica":"a","instance":"x","event":"start","at":1,"generation":1}\nnot json\n')).toThrow(
      /audit line 2 is not JSON/,
    );
    expect(() => parseAudit('{"replica":"a"}')).toThrow(/audit line 1 lacks replica, instance or at/);
    expect(() => passesOf([line('a', 'ns/p', 'end', 1)])).toThrow(/an end of ns\/p on a at 1 without a start/);
  });
});
