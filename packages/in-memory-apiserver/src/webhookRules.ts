import { errorMessage, Everything, selectorFromLabelSelector, type Selector } from '@protean/core';
import { isJsonObject } from './mergePatch.js';
import type { AdmissionOperation } from './ObjectStore.js';
import type { KubeObject } from './types.js';

/** The group of the webhook configurations; kube-apiserver never sends its resources to webhooks. */
export const ADMISSION_GROUP = 'admissionregistration.k8s.io';
export const VALIDATING_GVR = { group: ADMISSION_GROUP, version: 'v1', resource: 'validatingwebhookconfigurations' } as const;
export const MUTATING_GVR = { group: ADMISSION_GROUP, version: 'v1', resource: 'mutatingwebhookconfigurations' } as const;

/** One `rules[]` entry of a webhook. */
export interface WebhookRule {
  readonly operations: readonly string[];
  readonly apiGroups: readonly string[];
  readonly apiVersions: readonly string[];
  /** `plural`, `plural/sub`, `*`, `*\/*`, `*\/status`, `plural/*`. */
  readonly resources: readonly string[];
  /** `*` (default), `Cluster` or `Namespaced`. */
  readonly scope: string;
}

/** A webhook of a stored configuration, read once per stored object. */
export interface Webhook {
  readonly name: string;
  readonly type: 'validating' | 'mutating';
  readonly url: string | undefined;
  /** `clientConfig.service` is set: no cluster network reaches it from here. */
  readonly service: boolean;
  /** `clientConfig.caBundle` decoded (PEM), the only roots trusted; undefined: the system's. */
  readonly caPem: string | undefined;
  readonly rules: readonly WebhookRule[];
  readonly failurePolicy: 'Fail' | 'Ignore';
  readonly namespaceSelector: Selector;
  readonly objectSelector: Selector;
  readonly timeoutSeconds: number;
  /** Why the configuration cannot be used as written (a selector that does not parse): calling it fails with this. */
  readonly broken: string | undefined;
}

/** What a write's admission is matched on. */
export interface AdmissionTarget {
  readonly operation: AdmissionOperation;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  /** '' for the main resource. */
  readonly subresource: string;
  readonly namespaced: boolean;
  readonly object: KubeObject | undefined;
  readonly oldObject: KubeObject | undefined;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function selector(v: unknown, problems: string[], field: string): Selector {
  if (v === undefined || v === null) return Everything;
  try {
    return selectorFromLabelSelector(v as Parameters<typeof selectorFromLabelSelector>[0]);
  } catch (err) {
    problems.push(`${field}: ${errorMessage(err)}`);
    return Everything;
  }
}

/** The webhooks of a stored Validating/MutatingWebhookConfiguration, in their order. */
export function webhooksOf(config: KubeObject, type: 'validating' | 'mutating'): Webhook[] {
  const list = Array.isArray(config['webhooks']) ? (config['webhooks'] as unknown[]).filter(isJsonObject) : [];
  return list.map((w) => {
    const problems: string[] = [];
    const client = isJsonObject(w['clientConfig']) ? w['clientConfig'] : {};
    const caBundle = typeof client['caBundle'] === 'string' && client['caBundle'] !== '' ? client['caBundle'] : undefined;
    const rules = (Array.isArray(w['rules']) ? (w['rules'] as unknown[]).filter(isJsonObject) : []).map((r) => ({
      operations: strings(r['operations']),
      apiGroups: strings(r['apiGroups']),
      apiVersions: strings(r['apiVersions']),
      resources: strings(r['resources']),
      scope: typeof r['scope'] === 'string' && r['scope'] !== '' ? r['scope'] : '*',
    }));
    const timeout = w['timeoutSeconds'];
    return {
      name: typeof w['name'] === 'string' ? w['name'] : '',
      type,
      url: typeof client['url'] === 'string' && client['url'] !== '' ? client['url'] : undefined,
      service: isJsonObject(client['service']),
      caPem: caBundle === undefined ? undefined : Buffer.from(caBundle, 'base64').toString('utf8'),
      rules,
      failurePolicy: w['failurePolicy'] === 'Ignore' ? 'Ignore' : 'Fail',
      namespaceSelector: selector(w['namespaceSelector'], problems, 'namespaceSelector'),
      objectSelector: selector(w['objectSelector'], problems, 'objectSelector'),
      timeoutSeconds: typeof timeout === 'number' && timeout > 0 ? timeout : 10,
      broken: problems.length === 0 ? undefined : problems.join('; '),
    };
  });
}

function listed(values: readonly string[], value: string): boolean {
  return values.includes('*') || values.includes(value);
}

/** Whether `rule` names the target's operation, group, version, resource (and subresource) and scope. */
export function ruleMatches(rule: WebhookRule, t: AdmissionTarget): boolean {
  if (!listed(rule.operations, t.operation) || !listed(rule.apiGroups, t.group) || !listed(rule.apiVersions, t.version)) return false;
  if (rule.scope === 'Cluster' && t.namespaced) return false;
  if (rule.scope === 'Namespaced' && !t.namespaced) return false;
  return rule.resources.some((entry) => {
    const slash = entry.indexOf('/');
    const resource = slash < 0 ? entry : entry.slice(0, slash);
    const sub = slash < 0 ? '' : entry.slice(slash + 1);
    return (resource === '*' || resource === t.resource) && (sub === '*' || sub === t.subresource);
  });
}

function labelsOf(obj: KubeObject | undefined): Record<string, string> | undefined {
  return obj === undefined ? undefined : ((obj.metadata.labels as Record<string, string> | undefined) ?? {});
}

/**
 * Whether `hook` is called for the target: one of its rules matches, the namespace's labels match its
 * namespaceSelector (a Namespace is judged by its own labels; other cluster-scoped objects always match), and the
 * object's or the old object's labels match its objectSelector. `namespaceLabels` is asked only when needed.
 *
 * Easy to get wrong: `matchPolicy` is not looked at; this server serves each resource in one version, so no
 * request has an equivalent in another version or group and `Equivalent` matches what `Exact` does.
 */
export function webhookMatches(hook: Webhook, t: AdmissionTarget, namespaceLabels: () => Record<string, string>): boolean {
  if (t.group === ADMISSION_GROUP) return false;
  if (!hook.rules.some((r) => ruleMatches(r, t))) return false;
  if (!hook.namespaceSelector.empty()) {
    const isNamespace = t.group === '' && t.resource === 'namespaces';
    if (isNamespace) {
      const own = labelsOf(t.object) ?? labelsOf(t.oldObject) ?? {};
      if (!hook.namespaceSelector.matches(own)) return false;
    } else if (t.namespaced && !hook.namespaceSelector.matches(namespaceLabels())) return false;
  }
  if (!hook.objectSelector.empty()) {
    const candidates = [labelsOf(t.object), labelsOf(t.oldObject)].filter((l) => l !== undefined);
    if (!candidates.some((l) => hook.objectSelector.matches(l))) return false;
  }
  return true;
}

/**
 * Fills in what kube-apiserver defaults in a stored webhook configuration: `failurePolicy: Fail`,
 * `matchPolicy: Equivalent`, empty selectors, `timeoutSeconds: 10`, a rule's `scope: '*'`, and for mutating
 * webhooks `reinvocationPolicy: Never`. Mutates `config` (a private copy).
 */
export function defaultWebhookConfiguration(config: KubeObject, type: 'validating' | 'mutating'): void {
  if (!Array.isArray(config['webhooks'])) return;
  for (const w of (config['webhooks'] as unknown[]).filter(isJsonObject)) {
    w['failurePolicy'] ??= 'Fail';
    w['matchPolicy'] ??= 'Equivalent';
    w['namespaceSelector'] ??= {};
    w['objectSelector'] ??= {};
    w['timeoutSeconds'] ??= 10;
    if (type === 'mutating') w['reinvocationPolicy'] ??= 'Never';
    if (Array.isArray(w['rules'])) for (const r of (w['rules'] as unknown[]).filter(isJsonObject)) r['scope'] ??= '*';
  }
}
