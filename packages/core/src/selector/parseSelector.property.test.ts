import { describe, expect, it } from '@jest/globals';
import type { LabelSelectorRequirement } from './LabelSelector.js';
import { parseSelector } from './parseSelector.js';
import type { SelectorOperator } from './Selector.js';
import { selectorFromLabelSelector } from './selectorFromLabelSelector.js';
import { Random } from '../testing/Random.js';

const ALNUM = 'abcxyzABZ019';
const INNER = `${ALNUM}-_.`;

function word(g: Random, maxLength: number, inner = INNER, edge = ALNUM): string {
  const length = 1 + g.int(maxLength);
  let s = g.pick([...edge]);
  for (let i = 1; i < length - 1; i++) s += g.pick([...inner]);
  if (length > 1) s += g.pick([...edge]);
  return s;
}

function randomKey(g: Random): string {
  const special = ['in', 'notin', 'constructor', 'toString', 'a', 'b'];
  if (g.chance(0.3)) return g.pick(special);
  const name = g.chance(0.1) ? 'n'.repeat(63) : word(g, 12);
  if (!g.chance(0.3)) return name;
  const prefix = g.chance(0.1)
    ? ['a'.repeat(63), 'b'.repeat(63), 'c'.repeat(63), 'd'.repeat(61)].join('.')
    : word(g, 10, 'abc09-.', 'abc09').replace(/[-.]{2,}|-\.|\.-/g, 'x');
  return `${prefix}/${name}`;
}

function randomValue(g: Random): string {
  if (g.chance(0.15)) return '';
  if (g.chance(0.1)) return g.pick(['in', 'notin', 'v'.repeat(63)]);
  return word(g, 8);
}

interface Spec {
  key: string;
  operator: SelectorOperator;
  values: string[];
}

function randomSpec(g: Random, keys: readonly string[], values: readonly string[]): Spec {
  const operator = g.pick<SelectorOperator>(['In', 'NotIn', 'Exists', 'DoesNotExist']);
  const key = g.pick(keys);
  if (operator === 'Exists' || operator === 'DoesNotExist') return { key, operator, values: [] };
  const n = 1 + (g.chance(0.5) ? 0 : g.int(4));
  return { key, operator, values: Array.from({ length: n }, () => g.pick(values)) };
}

const ws = (g: Random, needed = false): string => {
  const s = g.chance(0.5) ? '' : g.pick([' ', '  ', '\t', '\n', ' \r\n ']);
  return needed && s === '' ? ' ' : s;
};

// Writes a requirement in one of the many equivalent ways the syntax allows.
function writeSpec(g: Random, r: Spec): string {
  const single = new Set(r.values).size === 1;
  const list = (): string => {
    const items = g.chance(0.5) ? r.values : [...r.values].reverse();
    const text = items.map((v) => `${ws(g)}${v}${ws(g)}`).join(',');
    // `()` is rejected, so a list holding only the empty value is `(,)`.
    return items.every((v) => v === '') ? '(,)' : `(${text})`;
  };
  switch (r.operator) {
    case 'In':
      if (single && g.chance(0.6)) return `${r.key}${ws(g)}${g.pick(['=', '=='])}${ws(g)}${r.values[0]}`;
      return `${r.key}${ws(g, true)}in${ws(g)}${list()}`;
    case 'NotIn':
      if (single && g.chance(0.6)) return `${r.key}${ws(g)}!=${ws(g)}${r.values[0]}`;
      return `${r.key}${ws(g, true)}notin${ws(g)}${list()}`;
    case 'Exists':
      return r.key;
    case 'DoesNotExist':
      return `!${ws(g)}${r.key}`;
  }
}

function shuffle<T>(g: Random, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = g.int(i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

// Kubernetes matching, written independently of the implementation.
function oracle(specs: readonly Spec[], labels: Readonly<Record<string, string>>): boolean {
  return specs.every((r) => {
    const has = Object.keys(labels).includes(r.key);
    const value = has ? labels[r.key] : undefined;
    switch (r.operator) {
      case 'In':
        return has && r.values.includes(value as string);
      case 'NotIn':
        return !has || !r.values.includes(value as string);
      case 'Exists':
        return has;
      case 'DoesNotExist':
        return !has;
    }
  });
}

const RUNS = 600;

describe('parseSelector round trip (property, seeded)', () => {
  it('gives one canonical string per selector, which parses back to the same requirements and matches like Kubernetes', () => {
    for (let seed = 1; seed <= RUNS; seed++) {
      // Seeded, so a failure reproduces from its seed.
      const g = new Random(seed);
      const keys = Array.from({ length: 1 + g.int(5) }, () => randomKey(g));
      const values = Array.from({ length: 1 + g.int(5) }, () => randomValue(g));
      const specs = Array.from({ length: g.int(7) }, () => randomSpec(g, keys, values));

      const written = shuffle(g, [...specs, ...(specs.length > 0 && g.chance(0.3) ? [g.pick(specs)] : [])]);
      const text = written.map((r) => `${ws(g)}${writeSpec(g, r)}${ws(g)}`).join(',');
      const parsed = parseSelector(text);
      const expressions: LabelSelectorRequirement[] = shuffle(g, specs).map((r) => ({ ...r }));
      const converted = selectorFromLabelSelector({ matchExpressions: expressions });

      const canonical = parsed.toString();
      const context = { seed, text, canonical };
      expect({ ...context, converted: converted.toString() }).toEqual({ ...context, converted: canonical });
      const reparsed = parseSelector(canonical);
      expect({ ...context, again: reparsed.toString() }).toEqual({ ...context, again: canonical });
      expect(reparsed.requirements()).toEqual(parsed.requirements());
      expect(parsed.empty()).toBe(specs.length === 0);
      expect(canonical).not.toContain('<');

      const reqs = parsed.requirements();
      for (let i = 1; i < reqs.length; i++) {
        expect((reqs[i - 1] as Spec).key <= (reqs[i] as Spec).key).toBe(true);
      }
      for (const r of reqs) {
        expect([...r.values]).toEqual([...new Set(r.values)].sort());
      }

      for (let trial = 0; trial < 8; trial++) {
        const labels: Record<string, string> = {};
        for (const key of keys) if (g.chance(0.6)) labels[key] = g.pick(values);
        const expected = oracle(specs, labels);
        expect({ ...context, labels, matches: parsed.matches(labels) }).toEqual({ ...context, labels, matches: expected });
        expect(converted.matches(labels)).toBe(expected);
      }
    }
  });
});
