import { describe, expect, it } from '@jest/globals';
import { InvalidSpecError } from './InvalidSpecError.js';
import { parseWebAppSpec } from './parseWebAppSpec.js';
import type { WebAppObject } from './WebAppObject.js';

function app(spec: unknown): WebAppObject {
  return { apiVersion: 'demo.protean.dev/v1alpha1', kind: 'WebApp', metadata: { name: 'shop', namespace: 'ns', uid: 'u1' }, spec };
}

describe('parseWebAppSpec', () => {
  it('fills in defaults for a missing or empty spec', () => {
    expect(parseWebAppSpec(app(undefined))).toEqual({ message: '', replicas: 1 });
    expect(parseWebAppSpec(app({ message: 'hi', replicas: 0 }))).toEqual({ message: 'hi', replicas: 0 });
  });

  it.each([
    [[1], 'spec', 'invalid spec of ns/shop: must be an object, got [1]'],
    [{ message: 3 }, 'spec.message', 'invalid spec.message of ns/shop: must be a string, got 3'],
    [{ replicas: '2' }, 'spec.replicas', 'invalid spec.replicas of ns/shop: must be an integer >= 0, got "2"'],
    [{ replicas: 1.5 }, 'spec.replicas', 'invalid spec.replicas of ns/shop: must be an integer >= 0, got 1.5'],
    [{ replicas: -1 }, 'spec.replicas', 'invalid spec.replicas of ns/shop: must be an integer >= 0, got -1'],
  ])('rejects %j, naming the field', (spec, field, message) => {
    const attempt = (): unknown => parseWebAppSpec(app(spec));
    expect(attempt).toThrow(new InvalidSpecError('ns/shop', field, message.slice(message.indexOf(': ') + 2)));
    expect(attempt).toThrow(message);
  });
});
