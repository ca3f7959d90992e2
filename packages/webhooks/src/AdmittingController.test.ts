import { describe, expect, it } from '@jest/globals';
import { type GroupVersionResource, type Handler, type RegisterOptions, silentLogger } from '@protean/core';
import { waitFor } from '@protean/core/testing';
import { KubeClient } from '@protean/client';
import { type KubeHttpRequest, type KubeHttpResponse, type KubeTransport } from '@protean/client/internal';
import { AdmissionRegistrar } from './AdmissionRegistrar.js';
import { AdmissionConfigError, AdmittingController, type RegisteringController } from './AdmittingController.js';
import type { AdmissionRequest } from './reviews.js';
import { WebhookServer } from './WebhookServer.js';

const widgets = { group: 'example.com', version: 'v1', resource: 'widgets' };
const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const noop: Handler = () => Promise.resolve();

/** A registrar whose applies are recorded (answered with their own body), writing while `writes.now` is true. */
function registrarRecording(writes = { now: true }): {
  registrar: AdmissionRegistrar;
  applied: () => Array<{ path: string; body: Record<string, unknown> }>;
} {
  const sent: KubeHttpRequest[] = [];
  const transport: KubeTransport = {
    send: (request): Promise<KubeHttpResponse> => {
      sent.push(request);
      return Promise.resolve({ status: 200, headers: {}, body: typeof request.body === 'string' ? request.body : '{}' });
    },
  };
  const registrar = new AdmissionRegistrar({
    client: new KubeClient({ transport }),
    name: 'ctl',
    clientConfig: { url: 'https://hooks.example:9443', caPem: CA },
    writes: () => writes.now,
  });
  return {
    registrar,
    applied: () =>
      sent
        .filter((r) => r.method === 'PATCH')
        .map((r) => ({ path: r.path.split('?')[0]!, body: JSON.parse(String(r.body)) as Record<string, unknown> })),
  };
}

/** Records register/deregister; `failNext` makes the next register reject. */
function controllerRecording(): RegisteringController & { calls: string[]; failNext: Error | undefined } {
  const c = {
    calls: [] as string[],
    failNext: undefined as Error | undefined,
    register(parent: GroupVersionResource, _handler: Handler, options?: RegisterOptions): Promise<void> {
      c.calls.push(`register ${parent.resource} ${JSON.stringify(options ?? {})}`);
      const err = c.failNext;
      c.failNext = undefined;
      return err === undefined ? Promise.resolve() : Promise.reject(err);
    },
    deregister(parent: GroupVersionResource): Promise<void> {
      c.calls.push(`deregister ${parent.resource}`);
      return Promise.resolve();
    },
  };
  return c;
}

function review(name: string, operation: AdmissionRequest['operation'] = 'CREATE'): object {
  const object = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace: 'demo' }, spec: { size: 20 } };
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: `u-${name}`,
      kind: { group: 'example.com', version: 'v1', kind: 'Widget' },
      resource: widgets,
      name,
      namespace: 'demo',
      operation,
      userInfo: { username: 'alice' },
      object,
    },
  };
}

const allowedOf = async (server: WebhookServer, path: string, name: string): Promise<unknown> =>
  ((await server.review(path, review(name))).body['response'] as { allowed: boolean }).allowed;

const webhookNames = (body: Record<string, unknown>): unknown[] =>
  (body['webhooks'] as Array<{ name: string; clientConfig: { url: string } }>).map((w) => [w.name, w.clientConfig.url]);

describe('AdmittingController', () => {
  it('serves a kind’s handlers, registers it, then puts it in the configurations; deregistering undoes it in reverse', async () => {
    const server = new WebhookServer({ tls: { cert: '', key: '' }, logger: silentLogger() });
    const controller = controllerRecording();
    const { registrar, applied } = registrarRecording();
    const admitting = new AdmittingController({ controller, server, registrar, logger: silentLogger() });

    await admitting.register(widgets, noop, {
      cache: [widgets],
      admission: {
        validate: (req) => (req.name === 'big' ? { allowed: false, message: 'too big' } : { allowed: true }),
        mutate: (req) => ({ object: { ...req.object, spec: { size: 10 } } }),
        failurePolicy: 'Ignore',
      },
    });
    // The controller got the options without `admission`.
    expect(controller.calls).toEqual([`register widgets ${JSON.stringify({ cache: [widgets] })}`]);
    const validatePath = AdmittingController.pathOf('validating', widgets);
    expect(validatePath).toBe('/validate/example.com/v1/widgets');
    expect(await allowedOf(server, validatePath, 'big')).toBe(false);
    expect(await allowedOf(server, validatePath, 'small')).toBe(true);
    const mutated = (await server.review('/mutate/example.com/v1/widgets', review('small'))).body['response'] as { patch: string };
    expect(JSON.parse(Buffer.from(mutated.patch, 'base64').toString())).toEqual([{ op: 'replace', path: '/spec/size', value: 10 }]);

    const [validating, mutating] = applied();
    expect(validating!.path).toBe('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/ctl');
    expect(webhookNames(validating!.body)).toEqual([
      ['widgets.example.com.webhooks.protean.dev', 'https://hooks.example:9443/validate/example.com/v1/widgets'],
    ]);
    expect(webhookNames(mutating!.body)).toEqual([
      ['widgets.example.com.webhooks.protean.dev', 'https://hooks.example:9443/mutate/example.com/v1/widgets'],
    ]);
    expect((validating!.body['webhooks'] as Array<{ failurePolicy: string }>)[0]!.failurePolicy).toBe('Ignore');

    await admitting.deregister(widgets);
    const after = applied().slice(2);
    expect(after.map((a) => webhookNames(a.body))).toEqual([[], []]);
    expect(controller.calls.at(-1)).toBe('deregister widgets');
    // kube-apiserver may still call until it sees the change: the path allows.
    expect(await allowedOf(server, validatePath, 'big')).toBe(true);
  });

  it('leaves nothing served or configured when the controller refuses the kind, and refuses an admission without handlers by name', async () => {
    const server = new WebhookServer({ tls: { cert: '', key: '' }, logger: silentLogger() });
    const controller = controllerRecording();
    const { registrar, applied } = registrarRecording();
    const admitting = new AdmittingController({ controller, server, registrar, logger: silentLogger() });
    controller.failNext = new Error('widgets.example.com is not served');
    await expect(admitting.register(widgets, noop, { admission: { validate: () => ({ allowed: false, message: 'no' }) } })).rejects.toThrow(
      'widgets.example.com is not served',
    );
    expect(applied()).toEqual([]);
    expect(await allowedOf(server, AdmittingController.pathOf('validating', widgets), 'x')).toBe(true);

    await expect(admitting.register(widgets, noop, { admission: { failurePolicy: 'Fail' } })).rejects.toThrow(
      new AdmissionConfigError('register widgets.example.com (v1): admission needs validate, mutate or both'),
    );
  });

  it('serves on every replica but writes only where `writes` says, and writes at once when a replica starts to', async () => {
    const writes = { now: false };
    const server = new WebhookServer({ tls: { cert: '', key: '' }, logger: silentLogger() });
    const { registrar, applied } = registrarRecording(writes);
    const admitting = new AdmittingController({ controller: controllerRecording(), server, registrar, logger: silentLogger() });
    await admitting.register(widgets, noop, { admission: { validate: () => ({ allowed: false, message: 'no' }) } });
    expect(applied()).toEqual([]);
    expect(await allowedOf(server, AdmittingController.pathOf('validating', widgets), 'x')).toBe(false);

    const stop = new AbortController();
    const errors: unknown[] = [];
    const kept = registrar.keepWritten(stop.signal, { checkMs: 5, resyncMs: 60_000, onError: (e) => errors.push(e) });
    try {
      writes.now = true; // took the lead
      await waitFor(() => applied().length === 2);
      expect(webhookNames(applied()[0]!.body)).toEqual([
        ['widgets.example.com.webhooks.protean.dev', 'https://hooks.example:9443/validate/example.com/v1/widgets'],
      ]);
      writes.now = false; // lost it: nothing more is written
      await admitting.deregister(widgets);
      expect(applied()).toHaveLength(2);
    } finally {
      stop.abort();
      await kept;
    }
    expect(errors).toEqual([]);
  });

  it('keeps a kind’s handlers when registering it again fails, so its configured paths never start to allow', async () => {
    const server = new WebhookServer({ tls: { cert: '', key: '' }, logger: silentLogger() });
    const controller = controllerRecording();
    const { registrar } = registrarRecording();
    const admitting = new AdmittingController({ controller, server, registrar, logger: silentLogger() });
    const path = AdmittingController.pathOf('validating', widgets);
    await admitting.register(widgets, noop, { admission: { validate: () => ({ allowed: false, message: 'first' }) } });
    controller.failNext = new Error('not synced yet');
    await expect(admitting.register(widgets, noop, { admission: { validate: () => ({ allowed: true }) } })).rejects.toThrow(
      'not synced yet',
    );
    expect(await allowedOf(server, path, 'x')).toBe(false);
    await expect(admitting.register(widgets, noop, { admission: {} })).rejects.toThrow(AdmissionConfigError);
    expect(await allowedOf(server, path, 'x')).toBe(false);
  });

  it('runs a deregister after the register of the same kind still syncing: nothing is left configured or served', async () => {
    const server = new WebhookServer({ tls: { cert: '', key: '' }, logger: silentLogger() });
    let synced: () => void = () => {};
    const calls: string[] = [];
    const controller: RegisteringController = {
      register: (parent) => {
        calls.push(`register ${parent.resource}`);
        return new Promise<void>((resolve) => (synced = resolve));
      },
      deregister: (parent) => {
        calls.push(`deregister ${parent.resource}`);
        return Promise.resolve();
      },
    };
    const { registrar, applied } = registrarRecording();
    const admitting = new AdmittingController({ controller, server, registrar, logger: silentLogger() });
    const registering = admitting.register(widgets, noop, { admission: { validate: () => ({ allowed: false, message: 'no' }) } });
    const deregistering = admitting.deregister(widgets);
    await waitFor(() => calls.length === 1);
    synced();
    await Promise.all([registering, deregistering]);
    expect(calls).toEqual(['register widgets', 'deregister widgets']);
    expect(
      applied()
        .slice(-2)
        .map((a) => webhookNames(a.body)),
    ).toEqual([[], []]);
    expect(await allowedOf(server, AdmittingController.pathOf('validating', widgets), 'x')).toBe(true);
  });
});
