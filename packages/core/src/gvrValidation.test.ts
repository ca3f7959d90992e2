import { describe, expect, it } from '@jest/globals';
import {
  InvalidGroupVersionResourceError,
  InvalidObjectNameError,
  validateGroupVersionResource,
  validateNamespace,
  validateObjectName,
} from './gvrValidation.js';

const ok = { group: 'apps', version: 'v1', resource: 'deployments' };

function gvrError(gvr: unknown): InvalidGroupVersionResourceError {
  try {
    validateGroupVersionResource(gvr);
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidGroupVersionResourceError);
    return err as InvalidGroupVersionResourceError;
  }
  throw new Error(`expected ${JSON.stringify(gvr)} to be refused`);
}

function nameError(check: (v: unknown) => void, value: unknown): InvalidObjectNameError {
  try {
    check(value);
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidObjectNameError);
    return err as InvalidObjectNameError;
  }
  throw new Error(`expected ${JSON.stringify(value)} to be refused`);
}

describe('validateGroupVersionResource', () => {
  it.each([
    { group: '', version: 'v1', resource: 'configmaps' },
    { group: 'apps', version: 'v1', resource: 'deployments' },
    { group: 'demo.protean.dev', version: 'v1alpha1', resource: 'webapps' },
    { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings' },
    { group: 'x-1.example.com', version: 'v2beta3', resource: 'my-things' },
    {
      group: 'a'.repeat(63) + '.' + 'b'.repeat(63) + '.' + 'c'.repeat(63) + '.' + 'd'.repeat(61),
      version: 'v' + '1'.repeat(62),
      resource: 'r'.repeat(63),
    },
  ])('accepts $group/$version/$resource', (gvr) => {
    expect(() => validateGroupVersionResource(gvr)).not.toThrow();
  });

  describe('group: "" or a DNS-1123 subdomain', () => {
    it.each(['a/b', 'Apps', 'apps.', '.apps', 'apps..io', '-apps', 'apps-', 'ap_ps', 'ap ps', '..', 'apps%2Fv1', 'a'.repeat(254)])(
      'refuses %j',
      (group) => {
        const err = gvrError({ ...ok, group });
        expect(err.field).toBe('group');
        expect(err.value).toBe(group);
        expect(err.message).toContain(`group ${JSON.stringify(group)}`);
        expect(err.message).toContain('DNS-1123 subdomain');
      },
    );

    it('refuses "core", saying the core group is ""', () => {
      const err = gvrError({ ...ok, group: 'core' });
      expect(err.field).toBe('group');
      expect(err.message).toContain('group "core" is not an API group: the core group');
      expect(err.message).toContain('is "" in a GroupVersionResource');
    });
  });

  describe('version: a DNS-1035 label', () => {
    it.each(['', 'V1', 'v1/..', '1', '1v', 'v1.0', 'v1-', 'v_1', '..', 'v' + '1'.repeat(63)])('refuses %j', (version) => {
      const err = gvrError({ ...ok, version });
      expect(err.field).toBe('version');
      expect(err.value).toBe(version);
      expect(err.message).toContain(`version ${JSON.stringify(version)}`);
      expect(err.message).toContain('DNS-1035 label');
    });
  });

  describe('resource: a lowercase DNS-1123 label', () => {
    it.each([
      '',
      'namespaces/default/configmaps',
      'pods/status',
      '..',
      '.',
      'ConfigMaps',
      'config.maps',
      '-pods',
      'pods-',
      'con%66igmaps',
      'pods?watch=1',
      'r'.repeat(64),
    ])('refuses %j', (resource) => {
      const err = gvrError({ ...ok, resource });
      expect(err.field).toBe('resource');
      expect(err.value).toBe(resource);
      expect(err.message).toContain(`resource ${JSON.stringify(resource)}`);
      expect(err.message).toContain('lowercase plural resource name');
    });

    it('accepts a resource starting with a digit (a DNS-1123 label, as aggregated APIs may serve)', () => {
      expect(() => validateGroupVersionResource({ ...ok, resource: '3dprints' })).not.toThrow();
    });
  });

  it('quotes the whole GVR and checks group, version, resource in that order', () => {
    const err = gvrError({ group: 'A', version: 'V', resource: 'R' });
    expect(err.field).toBe('group');
    expect(err.message).toMatch(/^invalid GroupVersionResource \{ group: "A", version: "V", resource: "R" \}: group "A" must be/);
    expect(err.name).toBe('InvalidGroupVersionResourceError');
    expect(err).toBeInstanceOf(TypeError);
  });

  it.each([
    [null, undefined],
    [undefined, undefined],
    ['/v1/configmaps', undefined],
    [{ version: 'v1', resource: 'configmaps' }, 'group'],
    [{ group: '', version: 1, resource: 'configmaps' }, 'version'],
    [{ group: '', version: 'v1', resource: ['configmaps'] }, 'resource'],
  ])('refuses the non-GVR %j (field %s)', (gvr, field) => {
    const err = gvrError(gvr);
    expect(err.field).toBe(field);
    expect(err.message).toContain('invalid GroupVersionResource');
  });

  it('prints a GVR with cyclic extra properties', () => {
    const gvr: Record<string, unknown> = { group: '', version: 'v1', resource: 'a/b' };
    gvr['self'] = gvr;
    expect(gvrError(gvr).message).toContain('resource "a/b"');
  });
});

describe('validateNamespace', () => {
  it.each(['', 'default', 'kube-system', 'team-a', '0', 'a'.repeat(63)])('accepts %j', (ns) => {
    expect(() => validateNamespace(ns)).not.toThrow();
  });

  it.each(['Default', 'team_a', 'team.a', 'a/b', '.', '..', '-a', 'a-', 'a%2Fb', 'a'.repeat(64), 7, null])('refuses %j', (ns) => {
    const err = nameError(validateNamespace, ns);
    expect(err.field).toBe('namespace');
    expect(err.value).toBe(ns);
    expect(err.message).toMatch(/^invalid namespace /);
    if (typeof ns === 'string') expect(err.message).toContain(JSON.stringify(ns));
  });
});

describe('validateObjectName', () => {
  it.each(['a', 'my-app', 'my.app', 'system:controller:x', 'Mixed_Case', '...', '.a', 'a..'])(
    'accepts %j (the path segment rule only)',
    (name) => {
      expect(() => validateObjectName(name)).not.toThrow();
    },
  );

  it.each(['', '.', '..', 'a/b', '/', 'a%2Fb', '%', 3, undefined])('refuses %j', (name) => {
    const err = nameError(validateObjectName, name);
    expect(err.field).toBe('name');
    expect(err.value).toBe(name);
    expect(err.message).toMatch(/^invalid name /);
    if (typeof name === 'string') expect(err.message).toContain(JSON.stringify(name));
  });
});
