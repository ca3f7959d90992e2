import { describe, expect, it } from '@jest/globals';
import { admissionReview, admit, conversionReview, type ReviewTarget } from './admission.js';

const widgets = { group: 'example.com', version: 'v1', resource: 'widgets' };
const widget = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'demo', labels: { 'a/b': 'x' } },
  spec: { tags: ['a', 'b'] },
};

/** Answers every review with `response` (the uid echoed) and records the paths and bodies it got. */
function answering(response: Record<string, unknown>, status = 200): ReviewTarget & { got: Array<[string, object]> } {
  const got: Array<[string, object]> = [];
  return {
    got,
    review: (path, body) => {
      got.push([path, body]);
      const uid = (body as { request: { uid: string } }).request.uid;
      return Promise.resolve({
        status,
        body:
          status === 200
            ? { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid, ...response } }
            : { error: 'NotFound' },
      });
    },
  };
}

const patchOf = (ops: unknown[]): string => Buffer.from(JSON.stringify(ops)).toString('base64');

describe('admissionReview', () => {
  it('builds the review kube-apiserver sends: kind from the object, name and namespace from its metadata, null for an absent object', () => {
    const review = admissionReview({ resource: widgets, operation: 'DELETE', oldObject: widget, uid: 'u' });
    expect(review).toEqual({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'u',
        kind: { group: 'example.com', version: 'v1', kind: 'Widget' },
        resource: widgets,
        requestKind: { group: 'example.com', version: 'v1', kind: 'Widget' },
        requestResource: widgets,
        name: 'w',
        namespace: 'demo',
        operation: 'DELETE',
        userInfo: { username: 'test-user', groups: ['system:authenticated'] },
        object: null,
        oldObject: widget,
        dryRun: false,
      },
    });
  });

  it('refuses a review kube-apiserver would never send, by what it lacks', () => {
    expect(() => admissionReview({ resource: widgets })).toThrow('admissionReview: a CREATE review needs an object');
    expect(() => admissionReview({ resource: widgets, operation: 'UPDATE', object: widget })).toThrow(
      'admissionReview: a UPDATE review needs an oldObject',
    );
  });

  it('gives each review its own uid', () => {
    const uid = (r: Record<string, unknown>): unknown => (r['request'] as { uid: string }).uid;
    expect(uid(admissionReview({ resource: widgets, object: widget }))).not.toEqual(
      uid(admissionReview({ resource: widgets, object: widget })),
    );
    expect(conversionReview([widget], 'example.com/v2', 'c')).toEqual({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      request: { uid: 'c', desiredAPIVersion: 'example.com/v2', objects: [widget] },
    });
  });
});

describe('admit', () => {
  it('applies a mutation’s patch to the request object (escaped paths, list items, removals) and reports the decision', async () => {
    const target = answering({
      allowed: true,
      warnings: ['defaulted'],
      patchType: 'JSONPatch',
      patch: patchOf([
        { op: 'add', path: '/spec/size', value: 3 },
        { op: 'replace', path: '/metadata/labels/a~1b', value: 'y' },
        { op: 'add', path: '/spec/tags/-', value: 'c' },
        { op: 'remove', path: '/spec/tags/0' },
      ]),
    });
    const outcome = await admit(target, '/mutate', admissionReview({ resource: widgets, object: widget }));
    expect(outcome).toMatchObject({ allowed: true, warnings: ['defaulted'] });
    expect(outcome.object).toEqual({
      ...widget,
      metadata: { ...widget.metadata, labels: { 'a/b': 'y' } },
      spec: { tags: ['b', 'c'], size: 3 },
    });
    expect(widget.spec.tags).toEqual(['a', 'b']); // the fixture is not changed
    expect(target.got[0]![0]).toBe('/mutate');
  });

  it('reports a denial with its status, and throws naming the path on anything but a review answered', async () => {
    const denied = await admit(
      answering({ allowed: false, status: { code: 403, message: 'no', reason: 'Forbidden' } }),
      '/v',
      admissionReview({ resource: widgets, object: widget }),
    );
    expect(denied).toEqual({
      allowed: false,
      status: { code: 403, message: 'no', reason: 'Forbidden' },
      warnings: [],
      patch: [],
      object: widget,
    });
    await expect(admit(answering({}, 404), '/nowhere', admissionReview({ resource: widgets, object: widget }))).rejects.toThrow(
      'admit /nowhere: answered 404 {"error":"NotFound"}',
    );
  });
});
