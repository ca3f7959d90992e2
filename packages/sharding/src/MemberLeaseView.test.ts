import { describe, expect, it } from '@jest/globals';
import { type Lease } from '@protean/leader-election';
import { formatMicroTime } from '@protean/leader-election/internal';
import { MemberLeaseView } from './MemberLeaseView.js';

const WALL_MS = Date.UTC(2026, 11, 1, 12);

function lease(name: string, holder: string, renewedAtWallMs: number, rv = '1'): Lease {
  return {
    metadata: { name, namespace: 'ctl', resourceVersion: rv },
    spec: { holderIdentity: holder, leaseDurationSeconds: 15, renewTime: formatMicroTime(renewedAtWallMs) },
  };
}

describe('MemberLeaseView', () => {
  it('dates a lease seen for the first time by its renewTime, taken the skew allowance younger', () => {
    const view = new MemberLeaseView('own', 15_000, () => WALL_MS, 2_000);
    view.absorbList([lease('dead', 'r9', WALL_MS - 10_000)], 100_000);
    // Renewed 10 s ago by the wall clocks, 8 s ago with the allowance: it expires in 7 s, not 15.
    expect(view.liveOthers('me', 100_000)).toEqual([{ identity: 'r9', holds: [], expiresAtMs: 107_000 }]);
    expect(view.liveOthers('me', 107_000)).toEqual([]);
  });

  it('never dates a first-seen lease later than now (a holder whose clock runs ahead), and times later changes on its own clock', () => {
    const view = new MemberLeaseView('own', 15_000, () => WALL_MS, 2_000);
    view.absorbList([lease('ahead', 'r1', WALL_MS + 60_000)], 100_000);
    expect(view.liveOthers('me', 100_000)[0]?.expiresAtMs).toBe(115_000);
    // A renewal whose renewTime is an hour old still counts from when this replica saw it change.
    view.absorbList([lease('ahead', 'r1', WALL_MS - 3_600_000, '2')], 105_000);
    expect(view.liveOthers('me', 105_000)[0]?.expiresAtMs).toBe(120_000);
  });
});
