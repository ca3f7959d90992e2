import { describe, expect, it } from '@jest/globals';
import { ApiError } from './ApiError.js';
import { enforceSchema } from './crdSchema.js';
import type { KubeObject } from './types.js';

const def = { group: 'demo.protean.dev', version: 'v1', kind: 'Thing' };
const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        size: { type: 'number', minimum: 1, exclusiveMinimum: true, maximum: 5, exclusiveMaximum: true },
        tags: { type: 'array', minItems: 1, items: { type: 'string' } },
        meta: { type: 'object', additionalProperties: { type: 'object', properties: { v: { type: 'integer', default: 7 } } } },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'string' } } },
      },
    },
  },
};
const thing = (spec: unknown, extra: Record<string, unknown> = {}): KubeObject =>
  ({ apiVersion: 'demo.protean.dev/v1', kind: 'Thing', metadata: { name: 't' }, spec, ...extra }) as KubeObject;
const refusal = (fn: () => unknown): { code: number; message: string } => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return { code: err.code, message: String(err.body.message) };
    throw err;
  }
  throw new Error('not refused');
};

describe('enforceSchema', () => {
  it('checks exclusive bounds and minItems with the real server words', () => {
    expect(refusal(() => enforceSchema(def, schema, thing({ size: 1 }), 'Warn')).message).toBe(
      'Thing.demo.protean.dev "t" is invalid: spec.size: Invalid value: 1: spec.size in body should be greater than 1',
    );
    expect(refusal(() => enforceSchema(def, schema, thing({ size: 5 }), 'Warn')).message).toMatch(/should be less than 5$/);
    expect(refusal(() => enforceSchema(def, schema, thing({ tags: [] }), 'Warn')).message).toMatch(
      /spec\.tags: Invalid value: 0: spec\.tags in body should have at least 1 items$/,
    );
  });

  it('defaults inside map values, keeps unknown fields where the schema preserves them, and prunes elsewhere', () => {
    const obj = thing({ meta: { a: {}, b: { v: 1, x: 2 } }, free: { known: 'k', other: { deep: true } } });
    expect(enforceSchema(def, schema, obj, 'Warn')).toEqual(['unknown field "spec.meta.b.x"']);
    expect(obj['spec']).toEqual({ meta: { a: { v: 7 }, b: { v: 1 } }, free: { known: 'k', other: { deep: true } } });
  });

  it('refuses unknown fields under Strict with 400, and says nothing under Ignore', () => {
    expect(refusal(() => enforceSchema(def, schema, thing({}, { x: 1 }), 'Strict'))).toEqual({
      code: 400,
      message: 'Thing in version "v1" cannot be handled as a Thing: strict decoding error: unknown field "x"',
    });
    const quiet = thing({}, { x: 1 });
    expect(enforceSchema(def, schema, quiet, 'Ignore')).toEqual([]);
    expect(quiet).not.toHaveProperty('x');
  });
});
