import { describe, expect, it } from '@jest/globals';
import { silentLogger, type PartialObjectMetadata } from '@protean/core';
import { HandlerSet } from './HandlerSet.js';

const o = (name: string): PartialObjectMetadata => ({ apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: { name } });

describe('HandlerSet', () => {
  it('replays the current objects as initial-list adds to a handler registered before sync', () => {
    const set = new HandlerSet(silentLogger());
    const seen: Array<[string, boolean]> = [];
    const reg = set.register({ onAdd: (obj, initial) => seen.push([obj.metadata.name, initial]) }, [o('a'), o('b')], false);
    expect(seen).toEqual([
      ['a', true],
      ['b', true],
    ]);
    expect(reg.hasSynced()).toBe(false);
    set.markSynced();
    expect(reg.hasSynced()).toBe(true);
  });

  it('marks a handler registered after sync synced at once, its replay not initial', () => {
    const set = new HandlerSet(silentLogger());
    const flags: boolean[] = [];
    const reg = set.register({ onAdd: (_o, initial) => flags.push(initial) }, [o('a')], true);
    expect(flags).toEqual([false]);
    expect(reg.hasSynced()).toBe(true);
  });

  it('isolates a throwing handler from the others', () => {
    const set = new HandlerSet(silentLogger());
    const seen: string[] = [];
    set.register(
      {
        onUpdate: () => {
          throw new Error('bad handler');
        },
      },
      [],
      true,
    );
    set.register({ onUpdate: (_old, n) => seen.push(n.metadata.name) }, [], true);
    set.updated(o('x'), o('x'));
    expect(seen).toEqual(['x']);
  });

  it('skips a handler that an earlier handler unregistered during the same dispatch', () => {
    const set = new HandlerSet(silentLogger());
    const seen: string[] = [];
    const victim: { reg?: ReturnType<HandlerSet['register']> } = {};
    set.register({ onDelete: () => victim.reg !== undefined && set.unregister(victim.reg) }, [], true);
    victim.reg = set.register({ onDelete: () => seen.push('victim') }, [], true);
    set.deleted(o('x'));
    set.deleted(o('y'));
    expect(seen).toEqual([]);
    expect(set.size).toBe(1);
  });

  it('does not hand the rest of a batch to a handler registered during it (its replay covered it)', () => {
    const set = new HandlerSet(silentLogger());
    const cache = [o('a'), o('b'), o('c')];
    const late: string[] = [];
    set.register(
      {
        onAdd: (obj) => {
          if (obj.metadata.name === 'a') set.register({ onAdd: (x) => late.push(x.metadata.name) }, cache, false);
        },
      },
      [],
      false,
    );
    const batch = set.batch();
    for (const obj of cache) batch.added(obj, true);
    expect(late).toEqual(['a', 'b', 'c']);
    set.added(o('d'), false);
    expect(late).toEqual(['a', 'b', 'c', 'd']);
  });
});
