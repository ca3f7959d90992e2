import { describe, expect, it } from '@jest/globals';
import { AlreadyOwnedError } from './AlreadyOwnedError.js';
import { InvalidOwnerError } from './InvalidOwnerError.js';
import type { KubeObject } from './KubeObject.js';
import { controllerOf, isControlledBy, setControllerReference, setOwnerReference } from './setControllerReference.js';

const greeting: KubeObject = {
  apiVersion: 'guide.protean.dev/v1',
  kind: 'Greeting',
  metadata: { name: 'hi', namespace: 'default', uid: 'uid-1' },
};
const other: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default', uid: 'uid-2' } };
const child = (): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'hi-greeting', namespace: 'default' } });

describe('setControllerReference', () => {
  it('adds a controller reference that blocks owner deletion', () => {
    const cm = setControllerReference(greeting, child());
    expect(cm.metadata?.ownerReferences).toEqual([
      { apiVersion: 'guide.protean.dev/v1', kind: 'Greeting', name: 'hi', uid: 'uid-1', controller: true, blockOwnerDeletion: true },
    ]);
    expect(controllerOf(cm)?.uid).toBe('uid-1');
    expect(isControlledBy(cm, greeting)).toBe(true);
    expect(isControlledBy(cm, other)).toBe(false);
  });

  it('is idempotent and updates the reference of the same owner in place (a recreated owner gets its new uid)', () => {
    const cm = setControllerReference(greeting, child());
    setControllerReference(greeting, cm);
    expect(cm.metadata?.ownerReferences).toHaveLength(1);
    const recreated = { ...greeting, apiVersion: 'guide.protean.dev/v2', metadata: { ...greeting.metadata, uid: 'uid-9' } };
    setControllerReference(recreated, cm);
    expect(cm.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ apiVersion: 'guide.protean.dev/v2', uid: 'uid-9', controller: true }),
    ]);
  });

  it('keeps other owners and refuses, with a named error, an object another controller owns', () => {
    const cm = setOwnerReference(other, child());
    setControllerReference(greeting, cm);
    expect(cm.metadata?.ownerReferences?.map((r) => [r.kind, r.controller])).toEqual([
      ['Deployment', undefined],
      ['Greeting', true],
    ]);
    const taken = setControllerReference(other, child(), { blockOwnerDeletion: false });
    const err = (() => {
      try {
        setControllerReference(greeting, taken);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(AlreadyOwnedError);
    expect(err).toMatchObject({
      object: 'ConfigMap default/hi-greeting',
      existing: { kind: 'Deployment', name: 'web' },
      requested: { kind: 'Greeting', name: 'hi' },
    });
    expect((err as Error).message).toContain('ConfigMap default/hi-greeting is already controlled by Deployment web');
    expect(taken.metadata?.ownerReferences).toHaveLength(1);
  });

  it('refuses an owner without its identity, or in another namespace, or namespaced over a cluster-scoped object', () => {
    expect(() => setControllerReference({ kind: 'Greeting', metadata: { name: 'hi' } }, child())).toThrow(InvalidOwnerError);
    expect(() => setControllerReference({ kind: 'Greeting', metadata: { name: 'hi' } }, child())).toThrow('lacks apiVersion, metadata.uid');
    const elsewhere = { ...greeting, metadata: { ...greeting.metadata, namespace: 'other' } };
    expect(() => setControllerReference(elsewhere, child())).toThrow('cross-namespace owner references are not allowed');
    const clusterScoped: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' } };
    expect(() => setControllerReference(greeting, clusterScoped)).toThrow(
      'cluster-scoped Namespace n cannot be owned by namespaced Greeting default/hi',
    );
  });

  it('refuses when the stored object (live) has another controller, though the object passed has none', () => {
    const live = setControllerReference(other, child());
    const intent = child();
    expect(() => setControllerReference(greeting, intent, { live })).toThrow(AlreadyOwnedError);
    expect(() => setControllerReference(greeting, intent, { live })).toThrow(
      'ConfigMap default/hi-greeting is already controlled by Deployment web (uid uid-2, apps/v1)',
    );
    expect(intent.metadata?.ownerReferences).toBeUndefined();
    const mine = setControllerReference(greeting, child());
    expect(controllerOf(setControllerReference(greeting, child(), { live: mine }))?.uid).toBe('uid-1');
  });

  it('lets a cluster-scoped owner own a namespaced object', () => {
    const ns: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team', uid: 'uid-ns' } };
    expect(controllerOf(setControllerReference(ns, child()))?.name).toBe('team');
  });
});

describe('setOwnerReference', () => {
  it('adds a non-controlling reference and keeps an existing controller flag', () => {
    const cm = setOwnerReference(greeting, child());
    expect(cm.metadata?.ownerReferences).toEqual([{ apiVersion: 'guide.protean.dev/v1', kind: 'Greeting', name: 'hi', uid: 'uid-1' }]);
    setControllerReference(greeting, cm);
    setOwnerReference(greeting, cm);
    expect(controllerOf(cm)?.name).toBe('hi');
  });
});
