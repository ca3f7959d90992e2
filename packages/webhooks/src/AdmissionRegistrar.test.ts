import { describe, expect, it } from '@jest/globals';
import { KubeClient } from '@protean/client';
import { type KubeHttpRequest, type KubeHttpResponse, type KubeTransport } from '@protean/client/internal';
import { AdmissionRegistrar, AdmissionRegistrationError } from './AdmissionRegistrar.js';

/** Answers every apply with its own body, and records what was sent. */
function recording(): { client: KubeClient; applied: () => Array<{ path: string; body: Record<string, unknown> }> } {
  const sent: KubeHttpRequest[] = [];
  const transport: KubeTransport = {
    send: (request): Promise<KubeHttpResponse> => {
      sent.push(request);
      return Promise.resolve({ status: 200, headers: {}, body: typeof request.body === 'string' ? request.body : '{}' });
    },
  };
  return {
    client: new KubeClient({ transport }),
    applied: () =>
      sent
        .filter((r) => r.method === 'PATCH')
        .map((r) => ({ path: r.path.split('?')[0]!, body: JSON.parse(String(r.body)) as Record<string, unknown> })),
  };
}

const widgets = { group: 'example.com', version: 'v1', resource: 'widgets' };
const configmaps = { group: '', version: 'v1', resource: 'configmaps' };
const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('AdmissionRegistrar', () => {
  it('applies both configurations with one webhook per registered kind and type, and takes a kind out again', async () => {
    const { client, applied } = recording();
    const registrar = new AdmissionRegistrar({ client, name: 'ctl', clientConfig: { url: 'https://hooks.example:9443/', caPem: CA } });
    await registrar.register(widgets, [
      { type: 'validating', path: '/validate-widgets' },
      { type: 'mutating', path: '/default-widgets', reinvocationPolicy: 'IfNeeded', operations: ['CREATE'] },
    ]);
    await registrar.register(configmaps, [{ type: 'validating', path: '/validate-cm', failurePolicy: 'Ignore', timeoutSeconds: 3 }]);
    const last = applied().slice(-2);
    expect(last.map((a) => a.path)).toEqual([
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/ctl',
      '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/ctl',
    ]);
    const [validating, mutating] = last.map((a) => a.body);
    expect(validating).toMatchObject({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'ctl' },
    });
    expect(validating!['webhooks']).toEqual([
      {
        name: 'widgets.example.com.webhooks.protean.dev',
        clientConfig: { url: 'https://hooks.example:9443/validate-widgets', caBundle: Buffer.from(CA).toString('base64') },
        rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['widgets'] }],
        failurePolicy: 'Fail',
        sideEffects: 'None',
        matchPolicy: 'Equivalent',
        admissionReviewVersions: ['v1'],
        timeoutSeconds: 10,
      },
      expect.objectContaining({
        name: 'configmaps.core.webhooks.protean.dev',
        rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        failurePolicy: 'Ignore',
        timeoutSeconds: 3,
      }),
    ]);
    expect(mutating!['webhooks']).toEqual([
      expect.objectContaining({
        name: 'widgets.example.com.webhooks.protean.dev',
        rules: [{ operations: ['CREATE'], apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['widgets'] }],
        reinvocationPolicy: 'IfNeeded',
      }),
    ]);

    await registrar.deregister(widgets);
    const [v, m] = applied()
      .slice(-2)
      .map((a) => a.body);
    expect((v!['webhooks'] as Array<{ name: string }>).map((w) => w.name)).toEqual(['configmaps.core.webhooks.protean.dev']);
    expect(m!['webhooks']).toEqual([]);
  });

  it('names a service as kube-apiserver calls it, and refuses what it would refuse, by name', () => {
    const { client } = recording();
    const registrar = new AdmissionRegistrar({
      client,
      name: 'ctl',
      clientConfig: { service: { namespace: 'sys', name: 'ctl-webhooks', port: 443 }, caPem: CA },
    });
    void registrar.register(widgets, [{ type: 'validating', path: '/v' }]);
    expect(registrar.configurations().validating['webhooks']).toEqual([
      expect.objectContaining({
        clientConfig: { service: { namespace: 'sys', name: 'ctl-webhooks', port: 443, path: '/v' }, caBundle: expect.any(String) },
      }),
    ]);
    expect(() => new AdmissionRegistrar({ client, name: 'x', clientConfig: { url: 'http://insecure:80', caPem: CA } })).toThrow(
      'kube-apiserver calls webhooks over HTTPS only, got http://insecure:80',
    );
    expect(() => new AdmissionRegistrar({ client, name: 'x', clientConfig: { caPem: CA } })).toThrow(AdmissionRegistrationError);
    expect(() => registrar.register(widgets, [{ type: 'validating', path: 'v' }])).toThrow('webhook path "v" must start with "/"');
    expect(() =>
      registrar.register(widgets, [
        { type: 'validating', path: '/a' },
        { type: 'validating', path: '/b' },
      ]),
    ).toThrow('widgets.example.com has two validating webhooks: give it one per type');
  });

  it('applies a CA bundle again after an apply of it failed', async () => {
    const sent: KubeHttpRequest[] = [];
    let failing = true;
    const transport: KubeTransport = {
      send: (request): Promise<KubeHttpResponse> => {
        sent.push(request);
        if (failing) return Promise.resolve({ status: 500, headers: {}, body: '{"kind":"Status","code":500,"message":"etcd is away"}' });
        return Promise.resolve({ status: 200, headers: {}, body: typeof request.body === 'string' ? request.body : '{}' });
      },
    };
    const registrar = new AdmissionRegistrar({
      client: new KubeClient({ transport, retry: { retries: 0 } }),
      name: 'ctl',
      clientConfig: { url: 'https://hooks.example:9443', caPem: CA },
    });
    const NEXT = '-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n';
    failing = false;
    await registrar.register(widgets, [{ type: 'validating', path: '/validate-widgets' }]);
    failing = true;
    await expect(registrar.setCaBundle(NEXT)).rejects.toThrow(/etcd is away/);
    failing = false;
    const patches = (): KubeHttpRequest[] => sent.filter((r) => r.method === 'PATCH');
    const before = patches().length;
    await registrar.setCaBundle(NEXT);
    const bundles = patches()
      .slice(before)
      .flatMap((r) => (JSON.parse(String(r.body)) as { webhooks: { clientConfig: { caBundle: string } }[] }).webhooks)
      .map((w) => Buffer.from(w.clientConfig.caBundle, 'base64').toString('utf8'));
    expect(patches().length - before).toBe(2);
    expect(bundles).toEqual([NEXT]);
    // And once applied, the same bundle is not sent again.
    await registrar.setCaBundle(NEXT);
    expect(patches().length - before).toBe(2);
  });
});
