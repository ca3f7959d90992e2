import { describe, expect, it } from '@jest/globals';
import { evaluateRules, hasRules, listTypeCauses, NO_OLD, ruleCompileCauses } from './crdRules.js';
import type { FieldCause } from './statusErrors.js';

const spec = {
  type: 'object',
  properties: {
    replicas: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self >= oldSelf', message: 'may not shrink' }] },
    ratio: { type: 'number', 'x-kubernetes-validations': [{ rule: 'self * 2.0 < 3.0' }] },
    name: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self.lowerAscii() == self', messageExpression: "'got ' + self" }] },
    free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-validations': [{ rule: 'self.n == 2' }] },
    items: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['k'],
      items: {
        type: 'object',
        properties: { k: { type: 'string' }, v: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } },
      },
    },
    plain: {
      type: 'array',
      items: { type: 'object', properties: { v: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } } },
    },
  },
};

function causes(value: unknown, old: unknown = NO_OLD): string[] {
  const out: FieldCause[] = [];
  evaluateRules(spec, value, 'spec', out, old);
  return out.map((c) => `${c.field}: ${c.message}`);
}

describe('CEL validation rules', () => {
  it('passes integers as int and numbers as double, so arithmetic and comparisons type-check as on kube-apiserver', () => {
    expect(causes({ replicas: 3, ratio: 1 })).toEqual([]);
    expect(causes({ ratio: 2 })).toEqual(['spec.ratio: Invalid value: 2: failed rule: self * 2.0 < 3.0']);
    // Under x-kubernetes-preserve-unknown-fields a whole number is an int.
    expect(causes({ free: { n: 2 } })).toEqual([]);
  });

  it('runs a transition rule only where an old value exists, and skips other rules on an unchanged value', () => {
    expect(causes({ replicas: 1 })).toEqual([]);
    expect(causes({ replicas: 1 }, { replicas: 2 })).toEqual(['spec.replicas: Invalid value: 1: may not shrink']);
    expect(causes({ replicas: 1 }, {})).toEqual([]);
    // Ratcheting: a value stored before the rule is not judged again while unchanged.
    expect(causes({ name: 'Old' }, { name: 'Old' })).toEqual([]);
    expect(causes({ name: 'New' }, { name: 'Old' })).toEqual(['spec.name: Invalid value: "New": got New']);
  });

  it('correlates items of map lists by key, and items of other lists not at all', () => {
    expect(
      causes(
        {
          items: [
            { k: 'b', v: 2 },
            { k: 'a', v: 1 },
          ],
        },
        { items: [{ k: 'a', v: 1 }] },
      ),
    ).toEqual([]);
    expect(causes({ items: [{ k: 'a', v: 5 }] }, { items: [{ k: 'a', v: 1 }] })).toEqual([
      'spec.items[0].v: Invalid value: 5: failed rule: self == oldSelf',
    ]);
    expect(causes({ plain: [{ v: 5 }] }, { plain: [{ v: 1 }] })).toEqual([]);
  });

  it('names an evaluation error and the rule', () => {
    const out: FieldCause[] = [];
    evaluateRules({ type: 'object', 'x-kubernetes-validations': [{ rule: 'self.missing == 1' }] }, {}, 'spec', out);
    expect(out[0]?.message).toMatch(/^Invalid value: .*missing.* evaluating rule: self\.missing == 1$/);
  });

  it('refuses rules that do not parse, naming their path in the CRD, and finds rules anywhere', () => {
    const bad = {
      type: 'object',
      properties: { a: { type: 'array', items: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self ==' }] } } },
    };
    expect(ruleCompileCauses(bad, 'spec.validation.openAPIV3Schema').map((c) => c.field)).toEqual([
      'spec.validation.openAPIV3Schema.properties[a].items.x-kubernetes-validations[0].rule',
    ]);
    expect(ruleCompileCauses(spec, 'x')).toEqual([]);
    expect(hasRules(bad)).toBe(true);
    expect(hasRules({ type: 'object', properties: { a: { type: 'string' } } })).toBe(false);
  });

  it('reports duplicates in set and map lists at the later item', () => {
    const out: FieldCause[] = [];
    const schema = {
      type: 'object',
      properties: {
        s: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'integer' } },
        m: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k', 'p'], items: { type: 'object' } },
      },
    };
    listTypeCauses(
      schema,
      {
        s: [1, 2, 1],
        m: [
          { k: 'a', p: 1 },
          { k: 'a', p: 2 },
          { k: 'a', p: 1, x: 0 },
        ],
      },
      'spec',
      out,
    );
    expect(out.map((c) => `${c.field}: ${c.message}`)).toEqual([
      'spec.s[2]: Duplicate value: 1',
      'spec.m[2]: Duplicate value: {"k":"a","p":1}',
    ]);
  });
});
