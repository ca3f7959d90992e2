import { describe, expect, it } from '@jest/globals';
import { denial } from './Admission.js';
import type { KubeObject } from './types.js';
import { readAnswer, WebhookCallError } from './webhookCall.js';
import {
  defaultWebhookConfiguration,
  ruleMatches,
  webhookMatches,
  webhooksOf,
  type AdmissionTarget,
  type WebhookRule,
} from './webhookRules.js';

const cm = (labels?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'a', namespace: 'ns', ...(labels === undefined ? {} : { labels }) },
});

const target = (over: Partial<AdmissionTarget> = {}): AdmissionTarget => ({
  operation: 'CREATE',
  group: '',
  version: 'v1',
  resource: 'configmaps',
  subresource: '',
  namespaced: true,
  object: cm(),
  oldObject: undefined,
  ...over,
});

const rule = (over: Partial<WebhookRule> = {}): WebhookRule => ({
  operations: ['CREATE'],
  apiGroups: [''],
  apiVersions: ['v1'],
  resources: ['configmaps'],
  scope: '*',
  ...over,
});

function hook(webhook: Record<string, unknown>): ReturnType<typeof webhooksOf>[number] {
  const config: KubeObject = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'c' },
    webhooks: [webhook],
  };
  return webhooksOf(config, 'validating')[0]!;
}

describe('ruleMatches', () => {
  it('matches by operation, group, version and resource, with * for any', () => {
    expect(ruleMatches(rule(), target())).toBe(true);
    expect(ruleMatches(rule(), target({ operation: 'UPDATE' }))).toBe(false);
    expect(ruleMatches(rule({ operations: ['*'] }), target({ operation: 'DELETE' }))).toBe(true);
    expect(ruleMatches(rule(), target({ group: 'apps' }))).toBe(false);
    expect(ruleMatches(rule({ apiGroups: ['*'] }), target({ group: 'apps' }))).toBe(true);
    expect(ruleMatches(rule(), target({ version: 'v2' }))).toBe(false);
    expect(ruleMatches(rule({ apiVersions: ['*'] }), target({ version: 'v2' }))).toBe(true);
    expect(ruleMatches(rule(), target({ resource: 'secrets' }))).toBe(false);
    expect(ruleMatches(rule({ resources: ['*'] }), target({ resource: 'secrets' }))).toBe(true);
  });

  it('matches a subresource only when the rule names it (resource/sub, */sub, resource/*, */*)', () => {
    const status = target({ subresource: 'status', operation: 'UPDATE', resource: 'widgets' });
    const any = { operations: ['*'] };
    expect(ruleMatches(rule({ ...any, resources: ['widgets'] }), status)).toBe(false);
    expect(ruleMatches(rule({ ...any, resources: ['*'] }), status)).toBe(false);
    expect(ruleMatches(rule({ ...any, resources: ['widgets/status'] }), status)).toBe(true);
    expect(ruleMatches(rule({ ...any, resources: ['*/status'] }), status)).toBe(true);
    expect(ruleMatches(rule({ ...any, resources: ['*/scale'] }), status)).toBe(false);
    expect(ruleMatches(rule({ ...any, resources: ['widgets/*'] }), status)).toBe(true);
    expect(ruleMatches(rule({ ...any, resources: ['*/*'] }), status)).toBe(true);
    // resource/* and */* cover the main resource too; resource/status does not.
    expect(ruleMatches(rule({ resources: ['configmaps/*'] }), target())).toBe(true);
    expect(ruleMatches(rule({ resources: ['configmaps/status'] }), target())).toBe(false);
  });

  it('honours scope', () => {
    expect(ruleMatches(rule({ scope: 'Namespaced' }), target())).toBe(true);
    expect(ruleMatches(rule({ scope: 'Cluster' }), target())).toBe(false);
    expect(ruleMatches(rule({ scope: 'Cluster', resources: ['*'] }), target({ resource: 'namespaces', namespaced: false }))).toBe(true);
  });
});

describe('webhookMatches', () => {
  const rules = [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }];

  it("judges a namespaced object by its namespace's labels, asked only when a selector is set", () => {
    const h = hook({ name: 'h', rules, namespaceSelector: { matchLabels: { team: 'a' } } });
    let asked = 0;
    const labels = (l: Record<string, string>) => () => (asked++, l);
    expect(webhookMatches(h, target(), labels({ team: 'a' }))).toBe(true);
    expect(webhookMatches(h, target(), labels({ team: 'b' }))).toBe(false);
    expect(webhookMatches(hook({ name: 'any', rules }), target(), labels({}))).toBe(true);
    expect(asked).toBe(2);
  });

  it('judges a Namespace by its own labels, and other cluster-scoped objects not at all', () => {
    const h = hook({ name: 'h', rules, namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'Exists' }] } });
    const never = (): Record<string, string> => {
      throw new Error('not asked');
    };
    const ns = (labels: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n', labels } });
    const nsTarget = (o: KubeObject): AdmissionTarget => target({ resource: 'namespaces', namespaced: false, object: o });
    expect(webhookMatches(h, nsTarget(ns({ team: 'x' })), never)).toBe(true);
    expect(webhookMatches(h, nsTarget(ns({})), never)).toBe(false);
    expect(
      webhookMatches(h, target({ group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions', namespaced: false }), never),
    ).toBe(true);
  });

  it('selects by the labels of the object or of the old one', () => {
    const h = hook({ name: 'h', rules, objectSelector: { matchLabels: { guarded: 'yes' } } });
    const ns = (): Record<string, string> => ({});
    expect(webhookMatches(h, target({ object: cm({ guarded: 'yes' }) }), ns)).toBe(true);
    expect(webhookMatches(h, target({ object: cm() }), ns)).toBe(false);
    expect(webhookMatches(h, target({ operation: 'UPDATE', object: cm(), oldObject: cm({ guarded: 'yes' }) }), ns)).toBe(true);
    expect(webhookMatches(h, target({ operation: 'DELETE', object: undefined, oldObject: cm({ guarded: 'yes' }) }), ns)).toBe(true);
    expect(webhookMatches(h, target({ operation: 'DELETE', object: undefined, oldObject: cm() }), ns)).toBe(false);
  });

  it('never sends the webhook configurations themselves to a webhook', () => {
    const h = hook({ name: 'h', rules });
    const t = target({ group: 'admissionregistration.k8s.io', resource: 'validatingwebhookconfigurations', namespaced: false });
    expect(webhookMatches(h, t, () => ({}))).toBe(false);
  });
});

describe('webhooksOf', () => {
  it('reads url, caBundle, policy and timeout, with the defaults of an unset field', () => {
    const ca = '-----BEGIN CERTIFICATE-----\nabc\n-----END CERTIFICATE-----\n';
    const h = hook({
      name: 'h',
      clientConfig: { url: 'https://127.0.0.1:1/x', caBundle: Buffer.from(ca).toString('base64') },
      failurePolicy: 'Ignore',
      timeoutSeconds: 3,
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
    });
    expect(h).toMatchObject({
      name: 'h',
      url: 'https://127.0.0.1:1/x',
      caPem: ca,
      failurePolicy: 'Ignore',
      timeoutSeconds: 3,
      service: false,
    });
    expect(h.rules[0]!.scope).toBe('*');
    expect(hook({ name: 'd', clientConfig: { service: { name: 's', namespace: 'n' } } })).toMatchObject({
      failurePolicy: 'Fail',
      timeoutSeconds: 10,
      service: true,
      url: undefined,
      broken: undefined,
    });
  });

  it('marks a webhook whose selector does not parse as broken, naming the field', () => {
    const h = hook({ name: 'h', objectSelector: { matchExpressions: [{ key: 'a', operator: 'Near' }] } });
    expect(h.broken).toMatch(/^objectSelector: /);
  });
});

describe('defaultWebhookConfiguration', () => {
  it("fills in kube-apiserver's defaults and keeps what is set", () => {
    const config: KubeObject = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'c' },
      webhooks: [
        { name: 'a', rules: [{ operations: ['CREATE'] }] },
        { name: 'b', failurePolicy: 'Ignore', timeoutSeconds: 2 },
      ],
    };
    defaultWebhookConfiguration(config, 'mutating');
    expect(config['webhooks']).toEqual([
      {
        name: 'a',
        rules: [{ operations: ['CREATE'], scope: '*' }],
        failurePolicy: 'Fail',
        matchPolicy: 'Equivalent',
        namespaceSelector: {},
        objectSelector: {},
        timeoutSeconds: 10,
        reinvocationPolicy: 'Never',
      },
      {
        name: 'b',
        failurePolicy: 'Ignore',
        matchPolicy: 'Equivalent',
        namespaceSelector: {},
        objectSelector: {},
        timeoutSeconds: 2,
        reinvocationPolicy: 'Never',
      },
    ]);
  });
});

describe('denial', () => {
  it("answers with the webhook's code, reason and message, as kube-apiserver words them", () => {
    expect(denial('w', { code: 422, reason: 'Invalid', message: 'bad' }).body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'admission webhook "w" denied the request: bad',
      reason: 'Invalid',
      code: 422,
    });
    expect(denial('w', { code: 200 }).body).toMatchObject({
      code: 400,
      message: 'admission webhook "w" denied the request without explanation',
    });
    expect(denial('w', { reason: 'Forbidden' }).body).toMatchObject({
      code: 400,
      message: 'admission webhook "w" denied the request: Forbidden',
    });
    expect(denial('w', undefined).body.reason).toBeUndefined();
  });
});

describe('readAnswer', () => {
  const answer = (response: Record<string, unknown>): string =>
    JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response });

  it('reads an allowed answer, its warnings and its JSON Patch', () => {
    const patch = Buffer.from(JSON.stringify([{ op: 'add', path: '/data', value: {} }])).toString('base64');
    expect(readAnswer(answer({ uid: 'u', allowed: true, patchType: 'JSONPatch', patch, warnings: ['w'] }), 'u')).toEqual({
      allowed: true,
      status: undefined,
      patch: [{ op: 'add', path: '/data', value: {} }],
      warnings: ['w'],
    });
  });

  it('refuses an answer to another request, a patch of another type, and what is not a review', () => {
    expect(() => readAnswer(answer({ uid: 'other', allowed: true }), 'u')).toThrow(
      new WebhookCallError('received invalid webhook response: expected response.uid="u", got "other"'),
    );
    expect(() => readAnswer(answer({ uid: 'u', allowed: true, patchType: 'Merge', patch: 'e30=' }), 'u')).toThrow(/unsupported patchType/);
    expect(() => readAnswer('{"kind":"Status"}', 'u')).toThrow(/expected admission.k8s.io\/v1 AdmissionReview/);
    expect(() => readAnswer('<html>', 'u')).toThrow(/not JSON/);
  });
});
