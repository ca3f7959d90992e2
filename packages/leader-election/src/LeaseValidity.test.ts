import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '@protean/core/testing';
import { LeaseValidity } from './LeaseValidity.js';

describe('LeaseValidity', () => {
  it('is valid until the renew deadline after the last successful renewal was sent, however late its answer came', () => {
    const clock = new FakeClock(1_000);
    const validity = new LeaseValidity(clock, 10_000, 'leadership of lease ctl/webapp');
    expect(validity.isValid()).toBe(false);
    validity.renewed(1_000);
    clock.advance(9_999);
    expect(validity.isValid()).toBe(true);
    expect(validity.remainingMs()).toBe(1);
    clock.advance(1);
    expect(validity.isValid()).toBe(false);
    // An answer of a renewal sent before the last one does not move validity backwards.
    validity.renewed(5_000);
    validity.renewed(2_000);
    expect(validity.validUntilMs()).toBe(15_000);
    expect(validity.renewedAtMs()).toBe(5_000);
  });

  it('ends at once when the lease is released or lost', () => {
    const clock = new FakeClock(0);
    const validity = new LeaseValidity(clock, 10_000, 'leadership of lease ctl/webapp');
    validity.renewed(0);
    validity.end();
    expect(validity.isValid()).toBe(false);
    expect(validity.validUntilMs()).toBe(Number.NEGATIVE_INFINITY);
    expect(validity.renewedAtMs()).toBeUndefined();
  });
});
