import { describe, expect, it } from '@jest/globals';
import type { GroupVersionResource, InformerCache, WatchHealth } from '@protean/core';
import { FakeClock, FakeListWatch, FakeStatusError } from '@protean/core/testing';
import { Informer } from '@protean/watch-manager';
import { InformerHealthRules } from './InformerHealthRules.js';

const webapps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const GRACE_MS = 60_000;
const LIVENESS_MS = 300_000;
const MAX_IDLE_MS = 200_000;

const rules = new InformerHealthRules({ readinessGraceMs: GRACE_MS, livenessGraceMs: LIVENESS_MS, maxIdleMs: MAX_IDLE_MS });

/** The informer engine over a fake list/watch of `gvr` on `clock`, synced unless told otherwise; the test drives the list/watch. */
function informer(clock: FakeClock, gvr: GroupVersionResource = webapps, synced = true): FakeListWatch & { cache: Informer } {
  const lw = new FakeListWatch(gvr, { autoSync: synced });
  const cache = new Informer(lw, {}, { clock });
  cache.run(new AbortController().signal);
  return Object.assign(lw, { cache });
}

function report(inf: { cache: InformerCache }, synced = inf.cache.hasSynced()): WatchHealth {
  return { gvr: inf.cache.gvr, owners: ['parent:x'], synced, informer: inf.cache.health() };
}

function assessOne(inf: { cache: InformerCache }, parents: GroupVersionResource[] = [webapps]) {
  return rules.assess([report(inf)], parents)[0]!;
}

describe('InformerHealthRules', () => {
  it('calls a synced informer that hears from the server healthy and up', () => {
    const clock = new FakeClock();
    const fi = informer(clock);
    clock.advance(10_000);
    expect(assessOne(fi)).toEqual({
      gvr: 'demo.protean.dev/v1/webapps',
      parent: true,
      owners: ['parent:x'],
      synced: true,
      healthy: true,
      down: false,
      problem: undefined,
      idleMs: 10_000,
      relists: 0,
      listMode: undefined,
      failing: undefined,
    });
  });

  it('calls an unsynced informer unhealthy at once, but not down', () => {
    const clock = new FakeClock();
    const fi = informer(clock, webapps, false);
    clock.advance(LIVENESS_MS * 2);
    expect(assessOne(fi)).toMatchObject({ synced: false, healthy: false, down: false, problem: 'not synced' });
  });

  it('keeps a failing informer healthy within the readiness grace period and calls it unhealthy from then on', () => {
    const clock = new FakeClock();
    const fi = informer(clock);
    fi.reportWatchError(new FakeStatusError(403));
    clock.advance(GRACE_MS - 1);
    const within = assessOne(fi);
    expect(within).toMatchObject({ healthy: true, down: false, failing: { forMs: GRACE_MS - 1, consecutive: 1, status: 403 } });
    expect(within.problem).toMatch(/^failing for 60 s \(1 in a row\): /);
    fi.reportWatchError(new FakeStatusError(403));
    clock.advance(1);
    expect(assessOne(fi)).toMatchObject({ healthy: false, down: false, failing: { forMs: GRACE_MS, consecutive: 2 } });
  });

  it('calls an informer failing for the liveness grace period down, and healthy again once it recovers', () => {
    const clock = new FakeClock();
    const fi = informer(clock);
    fi.reportWatchError(new FakeStatusError(503));
    clock.advance(LIVENESS_MS - 1);
    expect(assessOne(fi).down).toBe(false);
    clock.advance(1);
    expect(assessOne(fi)).toMatchObject({ healthy: false, down: true });
    fi.relisted();
    expect(assessOne(fi)).toMatchObject({ healthy: true, down: false, problem: undefined, failing: undefined, relists: 1 });
  });

  it('calls an informer that heard nothing for maxIdleMs stalled (unhealthy), and down from the liveness grace period', () => {
    const clock = new FakeClock();
    const fi = informer(clock);
    clock.advance(MAX_IDLE_MS - 1);
    expect(assessOne(fi).healthy).toBe(true);
    clock.advance(1);
    expect(assessOne(fi)).toMatchObject({ healthy: false, down: false, problem: 'nothing from the server for 200 s' });
    clock.advance(LIVENESS_MS - MAX_IDLE_MS);
    expect(assessOne(fi).down).toBe(true);
    fi.recover();
    expect(assessOne(fi)).toMatchObject({ healthy: true, down: false, idleMs: 0 });
  });

  it('marks registered parents, and only them', () => {
    const clock = new FakeClock();
    const statuses = rules.assess([report(informer(clock, webapps)), report(informer(clock, configmaps))], [webapps]);
    expect(statuses.map((s) => [s.gvr, s.parent])).toEqual([
      ['demo.protean.dev/v1/webapps', true],
      ['/v1/configmaps', false],
    ]);
  });

  it('defaults to 60 s, 300 s and 300 s, and refuses a negative grace period', () => {
    expect(new InformerHealthRules()).toMatchObject({ readinessGraceMs: 60_000, livenessGraceMs: 300_000, maxIdleMs: 300_000 });
    expect(() => new InformerHealthRules({ readinessGraceMs: -1 })).toThrow(/readinessGraceMs must be a finite number >= 0, got -1/);
  });
});
