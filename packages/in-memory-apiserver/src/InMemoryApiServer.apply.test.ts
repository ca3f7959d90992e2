import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ApiError } from './ApiError.js';
import { InMemoryApiServer } from './InMemoryApiServer.js';
import { fieldValues, fromFieldsV1, printPath, toFieldsV1, valueAt } from './fieldSet.js';

const configmaps = { group: '', version: 'v1', resource: 'configmaps' };
const secrets = { group: '', version: 'v1', resource: 'secrets' };

describe('InMemoryApiServer server-side apply (direct)', () => {
  let server: InMemoryApiServer;
  beforeAll(async () => {
    server = await InMemoryApiServer.start();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('creates, shares and refuses like the HTTP path', () => {
    const a = server.apply(
      configmaps,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' }, data: { x: '1' } },
      { fieldManager: 'alice' },
    );
    expect(a.metadata.managedFields).toEqual([
      expect.objectContaining({ manager: 'alice', operation: 'Apply', fieldsV1: { 'f:data': { 'f:x': {} } } }),
    ]);
    let err: unknown;
    try {
      server.apply(
        configmaps,
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' }, data: { x: '2' } },
        { fieldManager: 'bob' },
      );
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).body.details?.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.data.x' },
    ]);
    const forced = server.apply(
      configmaps,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' }, data: { x: '2' } },
      { fieldManager: 'bob', force: true },
    );
    expect(forced.data).toEqual({ x: '2' });
    expect(forced.metadata.managedFields?.map((e) => e.manager)).toEqual(['bob']);
  });

  it('folds stringData of a Secret written directly', () => {
    const s = server.create(secrets, { metadata: { name: 's', namespace: 'default' }, stringData: { k: 'v' } });
    expect(s['data']).toEqual({ k: Buffer.from('v').toString('base64') });
    expect(s['stringData']).toBeUndefined();
  });

  it('refuses a second controller reference written directly (422), as over HTTP', () => {
    const ref = (name: string): Record<string, unknown> => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name,
      uid: `uid-${name}`,
      controller: true,
    });
    const err = (() => {
      try {
        server.create(configmaps, { metadata: { name: 'owned', namespace: 'default', ownerReferences: [ref('p'), ref('q')] } } as never);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).body).toMatchObject({
      code: 422,
      reason: 'Invalid',
      details: { name: 'owned', kind: 'ConfigMap', causes: [{ field: 'metadata.ownerReferences', reason: 'FieldValueInvalid' }] },
    });
    expect((err as ApiError).body.message).toContain(
      'Only one reference can have Controller set to true. Found "true" in references for ConfigMap/p and ConfigMap/q',
    );
    expect(server.get(configmaps, 'default', 'owned')).toBeUndefined();
  });
});

describe('fieldsV1 paths', () => {
  it('round-trip, with "." for an owned map that holds owned fields and {} for one that holds none', () => {
    const tree = { 'f:data': { '.': {}, 'f:a': {} }, 'f:spec': {}, 'f:metadata': { 'f:labels': { 'f:x': {} } } };
    expect(toFieldsV1(fromFieldsV1(tree))).toEqual(tree);
  });

  it('read maps as fields of their own for Update managers, not for a built-in kind applied', () => {
    const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'n', uid: 'u', labels: { a: '1' } }, data: { k: 'v' } };
    expect(toFieldsV1(fieldValues(obj, { scope: 'all', maps: 'update', builtin: true }).keys())).toEqual({
      'f:data': { '.': {}, 'f:k': {} },
      'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } },
    });
    expect(toFieldsV1(fieldValues(obj, { scope: 'all', maps: 'apply', builtin: true }).keys())).toEqual({
      'f:data': { 'f:k': {} },
      'f:metadata': { 'f:labels': { 'f:a': {} } },
    });
  });
});

describe('fieldsV1 paths of owner references (a list keyed by uid)', () => {
  const obj = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'n', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u1' }] },
  };

  it('make each reference a field of its own, and the list one too for an Update', () => {
    expect(toFieldsV1(fieldValues(obj, { scope: 'all', maps: 'update', builtin: true }).keys())).toEqual({
      'f:metadata': { 'f:ownerReferences': { '.': {}, 'k:{"uid":"u1"}': {} } },
    });
    const applied = fieldValues(obj, { scope: 'all', maps: 'apply', builtin: true });
    expect(toFieldsV1(applied.keys())).toEqual({ 'f:metadata': { 'f:ownerReferences': { 'k:{"uid":"u1"}': {} } } });
    const [path] = [...applied.keys()];
    expect(printPath(path as string)).toBe('.metadata.ownerReferences[uid="u1"]');
    expect(valueAt(obj, path as string)).toEqual(obj.metadata.ownerReferences[0]);
  });
});
