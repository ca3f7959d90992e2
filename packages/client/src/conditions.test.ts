import { describe, expect, it } from '@jest/globals';
import { findStatusCondition, isStatusConditionTrue, removeStatusCondition, setStatusCondition, type Condition } from './conditions.js';

const t0 = new Date('2026-12-01T10:00:00.700Z');
const t1 = new Date('2026-12-01T10:05:00Z');

describe('setStatusCondition', () => {
  it('appends a new condition stamped with now, in whole seconds', () => {
    const conditions: Condition[] = [];
    expect(setStatusCondition(conditions, { type: 'Ready', status: 'False', reason: 'Creating', observedGeneration: 1 }, t0)).toBe(true);
    expect(conditions).toEqual([
      {
        type: 'Ready',
        status: 'False',
        reason: 'Creating',
        message: '',
        lastTransitionTime: '2026-12-01T10:00:00Z',
        observedGeneration: 1,
      },
    ]);
  });

  it('moves lastTransitionTime only when the status changes', () => {
    const conditions: Condition[] = [];
    setStatusCondition(conditions, { type: 'Ready', status: 'False', reason: 'Creating', message: 'working' }, t0);
    expect(setStatusCondition(conditions, { type: 'Ready', status: 'False', reason: 'Waiting', message: 'still working' }, t1)).toBe(true);
    expect(conditions[0]).toMatchObject({ reason: 'Waiting', message: 'still working', lastTransitionTime: '2026-12-01T10:00:00Z' });
    expect(setStatusCondition(conditions, { type: 'Ready', status: 'True', reason: 'Done' }, t1)).toBe(true);
    expect(conditions[0]).toMatchObject({ status: 'True', reason: 'Done', message: '', lastTransitionTime: '2026-12-01T10:05:00Z' });
  });

  it('reports no change when nothing differs, so a handler can skip the status write', () => {
    const conditions: Condition[] = [];
    setStatusCondition(conditions, { type: 'Ready', status: 'True', reason: 'Done', observedGeneration: 2 }, t0);
    const before = structuredClone(conditions);
    expect(setStatusCondition(conditions, { type: 'Ready', status: 'True', reason: 'Done', observedGeneration: 2 }, t1)).toBe(false);
    expect(conditions).toEqual(before);
  });

  it('updates observedGeneration on its own', () => {
    const conditions: Condition[] = [];
    setStatusCondition(conditions, { type: 'Ready', status: 'True', reason: 'Done', observedGeneration: 1 }, t0);
    expect(setStatusCondition(conditions, { type: 'Ready', status: 'True', reason: 'Done', observedGeneration: 2 }, t1)).toBe(true);
    expect(conditions[0]).toMatchObject({ observedGeneration: 2, lastTransitionTime: '2026-12-01T10:00:00Z' });
  });

  it("uses the input's lastTransitionTime for a transition", () => {
    const conditions: Condition[] = [];
    setStatusCondition(conditions, { type: 'Ready', status: 'True', reason: 'Done', lastTransitionTime: '2020-01-01T00:00:00Z' }, t0);
    expect(conditions[0]!.lastTransitionTime).toBe('2020-01-01T00:00:00Z');
  });

  it('keeps conditions of other types apart, and finds, tests and removes them', () => {
    const conditions: Condition[] = [];
    setStatusCondition(conditions, { type: 'Ready', status: 'True', reason: 'Done' }, t0);
    setStatusCondition(conditions, { type: 'Degraded', status: 'False', reason: 'Fine' }, t0);
    expect(conditions.map((c) => c.type)).toEqual(['Ready', 'Degraded']);
    expect(isStatusConditionTrue(conditions, 'Ready')).toBe(true);
    expect(isStatusConditionTrue(conditions, 'Degraded')).toBe(false);
    expect(findStatusCondition(conditions, 'Missing')).toBeUndefined();
    expect(removeStatusCondition(conditions, 'Ready')).toBe(true);
    expect(removeStatusCondition(conditions, 'Ready')).toBe(false);
    expect(conditions.map((c) => c.type)).toEqual(['Degraded']);
  });
});
