import { describe, expect, it } from '@jest/globals';
import { apiStatusOf, isNotFound, KubeApiError } from '../index.js';
import { FakeStatusError } from './FakeStatusError.js';

describe('FakeStatusError', () => {
  it('is a KubeApiError with its status, read by core as an API error status', () => {
    const err = new FakeStatusError(403);
    expect(err).toBeInstanceOf(KubeApiError);
    expect(err.name).toBe('FakeStatusError');
    expect(err.message).toBe('403: Forbidden');
    expect(err.status).toBe(403);
    expect(err.serverMessage).toBe('Forbidden');
    expect(apiStatusOf(err)).toEqual({ code: 403 });
  });

  it('names the object of a NotFound in its Status body, as the server does for a missing object', () => {
    const missing = new FakeStatusError(404, 'webapps "a" not found', 'a');
    expect(missing.body).toEqual({ details: { name: 'a' } });
    expect(isNotFound(missing)).toBe(true);
    expect(apiStatusOf(missing)).toEqual({ code: 404, name: 'a' });
    // A 404 naming no object: a resource not served, as a missing CRD looks.
    expect(new FakeStatusError(404).body).toBeUndefined();
    expect(apiStatusOf(new FakeStatusError(404))).toEqual({ code: 404 });
  });
});
