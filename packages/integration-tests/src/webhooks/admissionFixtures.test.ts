import { describe, expect, it } from '@jest/globals';
import { silentLogger } from '@protean/core';
import { admissionReview, admit, conversionReview } from '@protean/testing';
import { WebhookServer } from '@protean/webhooks';

/*
 * A handler tested the way @protean/testing documents it: AdmissionReview fixtures answered by a
 * WebhookServer in process (no certificate, no port), the mutation read as the object it stores.
 */

type Widget = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string }; spec: { size?: number; tier?: string } };

const widgets = { group: 'example.com', version: 'v1', resource: 'widgets' };
const widget = (spec: Widget['spec']): Widget => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'demo' },
  spec,
});

const server = new WebhookServer({ tls: { cert: '', key: '' }, logger: silentLogger() })
  .validate<Widget>('/validate', (req) =>
    req.operation === 'UPDATE' && req.oldObject!.spec.tier !== req.object!.spec.tier
      ? { allowed: false, message: 'spec.tier is immutable', reason: 'Invalid', code: 422 }
      : { allowed: true },
  )
  .mutate<Widget>('/default', (req) => ({
    object: { ...req.object!, spec: { tier: 'web', ...req.object!.spec } },
    warnings: ['tier defaulted'],
  }))
  .convert('/convert', (o, desired) => ({ ...o, apiVersion: desired }));

describe('a webhook handler tested with AdmissionReview fixtures', () => {
  it('stores the default a mutating handler adds, and the validating handler refuses a change of an immutable field', async () => {
    const defaulted = await admit(server, '/default', admissionReview({ resource: widgets, object: widget({ size: 2 }) }));
    expect(defaulted).toMatchObject({ allowed: true, warnings: ['tier defaulted'], object: widget({ size: 2, tier: 'web' }) });
    const kept = await admit(server, '/default', admissionReview({ resource: widgets, object: widget({ tier: 'db' }) }));
    expect(kept.patch).toEqual([]);

    const update = admissionReview({
      resource: widgets,
      operation: 'UPDATE',
      object: widget({ tier: 'db' }),
      oldObject: widget({ tier: 'web' }),
    });
    expect(await admit(server, '/validate', update)).toMatchObject({
      allowed: false,
      status: { code: 422, message: 'spec.tier is immutable', reason: 'Invalid' },
    });
    const deletion = admissionReview({ resource: widgets, operation: 'DELETE', oldObject: widget({ tier: 'web' }) });
    expect((await admit(server, '/validate', deletion)).allowed).toBe(true);
  });

  it('answers a conversion fixture, and a fixture sent to the wrong path is an error naming it', async () => {
    const reply = await server.review('/convert', conversionReview([widget({})], 'example.com/v2'));
    expect(reply.body['response']).toMatchObject({ result: { status: 'Success' }, convertedObjects: [{ apiVersion: 'example.com/v2' }] });
    await expect(admit(server, '/convert', admissionReview({ resource: widgets, object: widget({}) }))).rejects.toThrow(
      /^admit \/convert: answered 400/,
    );
  });
});
