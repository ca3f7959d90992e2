import { describe, expect, it } from '@jest/globals';
import { DeletedFinalStateUnknown, type GroupVersionResource, type PartialObjectMetadata } from '@protean/core';
import { fakeObject } from '@protean/core/testing';
import { toWatchEvent } from './toWatchEvent.js';

const cms: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };

function obj(name: string, resourceVersion?: string, labels: Record<string, string> = {}): PartialObjectMetadata {
  return fakeObject({ name, namespace: 'ns', labels, ...(resourceVersion === undefined ? {} : { resourceVersion }) });
}

describe('toWatchEvent', () => {
  it('flags an add as initialList only when the informer says it belongs to the initial list', () => {
    expect(toWatchEvent(cms, 'add', obj('a', '1'), undefined, true).initialList).toBe(true);
    expect(toWatchEvent(cms, 'add', obj('a', '1'), undefined, false)).not.toHaveProperty('initialList');
    expect(toWatchEvent(cms, 'add', obj('a', '1'))).not.toHaveProperty('initialList');
    // An add of a share taken over (a shard's new range) says so; other adds do not.
    expect(toWatchEvent(cms, 'add', obj('a', '1'), undefined, false, true).takeover).toBe(true);
    expect(toWatchEvent(cms, 'add', obj('a', '1'))).not.toHaveProperty('takeover');
  });

  it('flags an update as resync only when the informer says it replays its cache', () => {
    const cached = obj('a', '7');
    expect(toWatchEvent(cms, 'update', cached, cached, false, false, true).resync).toBe(true);
    // The flag is the informer's word, whatever the objects look like.
    expect(toWatchEvent(cms, 'update', obj('a'), obj('a'), false, false, true).resync).toBe(true);
    // Only updates are replays.
    expect(toWatchEvent(cms, 'add', cached, undefined, false, false, true)).not.toHaveProperty('resync');
    expect(toWatchEvent(cms, 'delete', cached, undefined, false, false, true)).not.toHaveProperty('resync');
  });

  it('does not guess a resync from the objects: the same object or resourceVersion without the flag is a change', () => {
    const cached = obj('a', '7');
    // A watch event that repeats the cached resourceVersion (or the cached object itself) is not a replay.
    expect(toWatchEvent(cms, 'update', cached, cached)).not.toHaveProperty('resync');
    expect(toWatchEvent(cms, 'update', obj('a', '7'), obj('a', '7'), false, false, false)).not.toHaveProperty('resync');
    expect(toWatchEvent(cms, 'update', obj('a', '8', { x: 'y' }), obj('a', '7'))).not.toHaveProperty('resync');
  });

  it('never flags a delete, even from a tombstone', () => {
    const event = toWatchEvent(cms, 'delete', new DeletedFinalStateUnknown('ns/a', obj('a', '3')));
    expect(event).toEqual({ type: 'delete', gvr: cms, name: 'a', namespace: 'ns', labels: {}, resourceVersion: '3' });
  });

  it("carries the object's resourceVersion, and none for a tombstone without its object", () => {
    expect(toWatchEvent(cms, 'add', obj('a', '7')).resourceVersion).toBe('7');
    expect(toWatchEvent(cms, 'delete', new DeletedFinalStateUnknown('ns/a', undefined))).not.toHaveProperty('resourceVersion');
  });
});
