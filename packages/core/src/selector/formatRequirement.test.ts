import { describe, expect, it } from '@jest/globals';
import { formatRequirement } from './formatRequirement.js';

describe('formatRequirement', () => {
  it.each<[Parameters<typeof formatRequirement>[0], string]>([
    [{ key: 'a', operator: 'In', values: ['b'] }, 'a=b'],
    [{ key: 'a', operator: 'In', values: [''] }, 'a='],
    [{ key: 'a', operator: 'In', values: ['b', 'c'] }, 'a in (b,c)'],
    [{ key: 'a', operator: 'In', values: ['', 'c'] }, 'a in (,c)'],
    [{ key: 'a', operator: 'NotIn', values: ['b'] }, 'a!=b'],
    [{ key: 'a', operator: 'NotIn', values: ['b', 'c'] }, 'a notin (b,c)'],
    [{ key: 'a', operator: 'Exists', values: [] }, 'a'],
    [{ key: 'a', operator: 'DoesNotExist', values: [] }, '!a'],
  ])('prints %j as %j', (requirement, text) => {
    expect(formatRequirement(requirement)).toBe(text);
  });
});
