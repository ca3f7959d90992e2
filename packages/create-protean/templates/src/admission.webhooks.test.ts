// The webhooks' rules, called as kube-apiserver calls them (AdmissionReview fixtures from @protean/testing),
// answered in process by the same WebhookServer the controller runs: no port, no certificate.
import { describe, expect, it } from '@jest/globals';
import { silentLogger } from '@protean/core';
import { admissionReview, admit } from '@protean/testing';
import { AdmittingController, WebhookServer } from '@protean/webhooks';
import { DEFAULT_MESSAGE, defaultParent, validateParent } from './admission.js';
import type { Parent } from './kind.js';
import { PARENT } from './names.js';

const server = new WebhookServer({ tls: { cert: '', key: '' }, logger: silentLogger() })
  .mutate<Parent>('/mutate', defaultParent)
  .validate<Parent>('/validate', validateParent);

const parent = (spec: Parent['spec']): Parent => ({
  apiVersion: PARENT.apiVersion,
  kind: PARENT.kind,
  metadata: { name: 'p', namespace: 'demo' },
  spec,
});

describe('the {{kind}} webhooks', () => {
  it('default spec.message when it is left out, and keep one that is given', async () => {
    const defaulted = await admit(server, '/mutate', admissionReview({ resource: PARENT.gvr, object: parent({}) }));
    expect(defaulted.object?.['spec']).toEqual({ message: DEFAULT_MESSAGE });
    const kept = await admit(server, '/mutate', admissionReview({ resource: PARENT.gvr, object: parent({ message: 'hi' }) }));
    expect(kept.patch).toEqual([]);
  });

  it('refuse a message with spaces around it, on create and on update', async () => {
    const create = await admit(server, '/validate', admissionReview({ resource: PARENT.gvr, object: parent({ message: ' hi' }) }));
    expect(create).toMatchObject({ allowed: false, status: { code: 422, message: 'spec.message: must not start or end with spaces' } });
    const update = admissionReview({
      resource: PARENT.gvr,
      operation: 'UPDATE',
      object: parent({ message: 'hi ' }),
      oldObject: parent({ message: 'hi' }),
    });
    expect((await admit(server, '/validate', update)).allowed).toBe(false);
    expect((await admit(server, '/validate', admissionReview({ resource: PARENT.gvr, object: parent({ message: 'hi' }) }))).allowed).toBe(
      true,
    );
  });

  it('are served where the registration points kube-apiserver', () => {
    expect(AdmittingController.pathOf('validating', PARENT.gvr)).toBe('/validate/{{group}}/v1alpha1/{{plural}}');
  });
});
