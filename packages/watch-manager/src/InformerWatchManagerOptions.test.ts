import { describe, expect, it } from '@jest/globals';
import { silentLogger } from '@protean/core';
import { FakeInformerSource } from '@protean/core/testing';
import { InformerWatchManager } from './InformerWatchManager.js';
import type { InformerWatchManagerOptions } from './InformerWatchManagerOptions.js';
import { watchManagerModule } from './watchManagerModule.js';

/** The longest delay Node's timers honour (core's `MAX_TIMER_DELAY_MS`); one more fires after 1 ms. */
const LIMIT = 2 ** 31 - 1;
const OVER = 2 ** 31;

function manager(options: InformerWatchManagerOptions, resyncPeriodMs = 0): InformerWatchManager {
  return new InformerWatchManager(new FakeInformerSource(), resyncPeriodMs, () => undefined, silentLogger(), options);
}

/** Each option that becomes a timer's delay, a value past the limit, and the name its error must give. */
const pastTheLimit: readonly (readonly [string, InformerWatchManagerOptions])[] = [
  ['syncTimeoutMs', { syncTimeoutMs: OVER }],
  ['syncTimeoutMs', { syncTimeoutMs: Number.POSITIVE_INFINITY }],
  ['failFastMs', { failFastMs: OVER }],
  ['kindRecheckMs', { kindRecheckMs: OVER }],
  ['kindRecheckMs', { kindRecheckMs: Number.POSITIVE_INFINITY }],
  ['failureBackoff.initialMs', { failureBackoff: { initialMs: OVER, maxMs: OVER } }],
  ['failureBackoff.maxMs', { failureBackoff: { maxMs: OVER } }],
  ['failureBackoff.maxMs', { failureBackoff: { maxMs: Number.POSITIVE_INFINITY } }],
];

/** The error of `name` past the limit: it names the option and the limit. */
function pastLimitError(name: string): RegExp {
  return new RegExp(`InformerWatchManager: ${name.replace('.', '\\.')}\\b.* must be .*at most ${LIMIT} ms`);
}

describe('InformerWatchManagerOptions: durations that become timers', () => {
  it.each(pastTheLimit)(
    'refuses %s past 2^31 - 1 ms, naming it and the limit, in new InformerWatchManager and watchManagerModule',
    (name, options) => {
      expect(() => manager(options)).toThrow(RangeError);
      expect(() => manager(options)).toThrow(pastLimitError(name));
      const source = new FakeInformerSource();
      expect(() => watchManagerModule({ source, watchManager: options })).toThrow(RangeError);
      expect(() => watchManagerModule({ source, watchManager: options })).toThrow(pastLimitError(name));
    },
  );

  it('refuses a syncTimeoutMs of NaN, naming it', () => {
    expect(() => manager({ syncTimeoutMs: Number.NaN })).toThrow(/InformerWatchManager: syncTimeoutMs must be .*got NaN/);
    expect(() => watchManagerModule({ source: new FakeInformerSource(), watchManager: { syncTimeoutMs: Number.NaN } })).toThrow(
      /syncTimeoutMs must be .*got NaN/,
    );
  });

  it('takes every duration at the limit, failFastMs: Infinity (wait for the deadline), and a syncTimeoutMs of 0 or less (the default)', () => {
    const atLimit: InformerWatchManagerOptions = {
      syncTimeoutMs: LIMIT,
      failFastMs: LIMIT,
      kindRecheckMs: LIMIT,
      failureBackoff: { initialMs: LIMIT, maxMs: LIMIT },
    };
    expect(() => manager(atLimit, LIMIT)).not.toThrow();
    expect(() => watchManagerModule({ source: new FakeInformerSource(), watchManager: atLimit })).not.toThrow();
    expect(() => manager({ failFastMs: Number.POSITIVE_INFINITY })).not.toThrow();
    expect(() => manager({ failFastMs: OVER })).toThrow(
      `InformerWatchManager: failFastMs must be at most ${LIMIT} ms (the longest delay Node's timers honour) or Infinity (wait for the deadline), got ${OVER}`,
    );
    expect(manager({ syncTimeoutMs: 0 }).syncTimeoutMs).toBe(0);
    expect(manager({ syncTimeoutMs: -1 }).syncTimeoutMs).toBe(-1);
  });

  it('refuses a resyncPeriodMs past the limit in new InformerWatchManager, naming it and the limit', () => {
    expect(() => manager({}, OVER)).toThrow(RangeError);
    expect(() => manager({}, OVER)).toThrow(
      `InformerWatchManager: resyncPeriodMs must be at most ${LIMIT} ms (the longest delay Node's timers honour), got ${OVER}`,
    );
  });

  it('checks a syncTimeoutMs set on a running watch manager, keeping the one it had', () => {
    const wm = manager({ syncTimeoutMs: 5000 });
    expect(() => (wm.syncTimeoutMs = OVER)).toThrow(pastLimitError('syncTimeoutMs'));
    expect(() => (wm.syncTimeoutMs = Number.NaN)).toThrow(/syncTimeoutMs must be .*got NaN/);
    expect(wm.syncTimeoutMs).toBe(5000);
    wm.syncTimeoutMs = LIMIT;
    expect(wm.syncTimeoutMs).toBe(LIMIT);
  });
});
