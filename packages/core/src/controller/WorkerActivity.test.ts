import { describe, expect, it } from '@jest/globals';
import type { GroupVersionResource, ObjectIdentifiers } from '../gvr.js';
import { FakeClock } from '../testing/index.js';
import { WorkerActivity } from './WorkerActivity.js';
import { workItemKey } from './workItemKey.js';

const webapps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const databases: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'databases' };
const item = (name: string, gvr = webapps): ObjectIdentifiers => ({ gvr, namespace: 'ns', name });
const failure = (it: ObjectIdentifiers, failures = 1) => ({
  item: it,
  error: 'Error: x',
  reason: 'Error',
  failures,
  nextRetryAtMs: undefined,
  dropped: false,
});

describe('WorkerActivity', () => {
  it('keeps at most its limit of failing items, dropping the oldest, and moves a failing item to the front on a new failure', () => {
    const clock = new FakeClock();
    const activity = new WorkerActivity(clock, 3);
    for (const name of ['a', 'b', 'c']) {
      activity.recordFailure(workItemKey(item(name)), failure(item(name)));
      clock.advance(10);
    }
    activity.recordFailure(workItemKey(item('a')), failure(item('a'), 2));
    expect(activity.recentFailures().map((f) => [f.item.name, f.failures, f.atMs])).toEqual([
      ['a', 2, 30],
      ['c', 1, 20],
      ['b', 1, 10],
    ]);
    activity.recordFailure(workItemKey(item('d')), failure(item('d')));
    expect(activity.recentFailures().map((f) => f.item.name)).toEqual(['d', 'a', 'c']);
  });

  it('forgets the failures of a deregistered parent only', () => {
    const activity = new WorkerActivity(new FakeClock());
    activity.recordFailure(workItemKey(item('a')), failure(item('a')));
    activity.recordFailure(workItemKey(item('a', databases)), failure(item('a', databases)));
    activity.forgetParent('demo.protean.dev/v1/webapps');
    expect(activity.recentFailures().map((f) => f.item.gvr.resource)).toEqual(['databases']);
  });

  it('lists running passes oldest first and answers isInFlight by item', () => {
    const clock = new FakeClock(5);
    const activity = new WorkerActivity(clock);
    activity.begin(workItemKey(item('b')), item('b'));
    clock.advance(1);
    activity.begin(workItemKey(item('a')), item('a'));
    expect(activity.inFlight().map((p) => [p.item.name, p.startedAtMs])).toEqual([
      ['b', 5],
      ['a', 6],
    ]);
    expect(activity.isInFlight(item('a'))).toBe(true);
    activity.end(workItemKey(item('a')));
    expect(activity.isInFlight(item('a'))).toBe(false);
    expect(activity.inFlightKeys()).toEqual([workItemKey(item('b'))]);
  });
});
