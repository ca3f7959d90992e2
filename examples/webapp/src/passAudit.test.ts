import { describe, expect, it } from '@jest/globals';
import { overlappingPasses, type AuditedPass } from './passAudit.js';

const pass = (replica: string, name: string, startMs: number, endMs: number): AuditedPass => ({
  replica,
  namespace: 'billing',
  name,
  startMs,
  endMs,
});

describe('overlappingPasses', () => {
  it('finds passes of one WebApp by two replicas at the same time', () => {
    const a = pass('replica-0', 'web', 10, 20);
    const b = pass('replica-1', 'web', 15, 25);
    expect(overlappingPasses([a, b])).toEqual([[a, b]]);
  });

  it('accepts a handoff where the new owner starts once the old one ended, and passes of one replica or of other WebApps', () => {
    expect(
      overlappingPasses([
        pass('replica-0', 'web', 10, 20),
        pass('replica-1', 'web', 20, 30),
        pass('replica-1', 'web', 25, 35),
        pass('replica-0', 'api', 12, 40),
      ]),
    ).toEqual([]);
  });
});
