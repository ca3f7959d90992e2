import { randomUUID } from 'node:crypto';
import { ApiError } from './ApiError.js';
import { jsonPatch, JsonPatchError } from './jsonPatch.js';
import { isJsonObject } from './mergePatch.js';
import { StaleWrite, type AdmissionPoint, type ObjectStore, type WriteSteps } from './ObjectStore.js';
import { conflict, internalError, statusBody } from './statusErrors.js';
import type { KubeObject } from './types.js';
import { callWebhook, WebhookCallError, type WebhookAnswer } from './webhookCall.js';
import { MUTATING_GVR, VALIDATING_GVR, webhookMatches, webhooksOf, type AdmissionTarget, type Webhook } from './webhookRules.js';

/** The `userInfo` of every review: this server authenticates nobody, so every request is the admin's. */
export const ADMISSION_USER = { username: 'admin', groups: ['system:masters', 'system:authenticated'] } as const;

/** What a review says of the request beyond the write itself. */
export interface AdmissionRequestInfo {
  /** `?fieldManager=` of the request, if given. */
  fieldManager?: string;
  /** `?fieldValidation=` of the request, if given. */
  fieldValidation?: string;
  /** Where the webhooks' warnings go (the response's `Warning` header). */
  warnings: string[];
}

/** How often a write whose object changed while webhooks looked at it is started over. */
const ATTEMPTS = 5;

const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' } as const;

/**
 * Calls the admission webhooks of the stored Validating/MutatingWebhookConfigurations on HTTP writes, as
 * kube-apiserver does: at a write's mutating point the matching mutating webhooks one after another (configurations
 * by name, webhooks in order; each JSON Patch applied before the next is called), then the store's own defaulting
 * and validation, then at the validating point every matching validating webhook at once. A denial answers the
 * client with the webhook's code (at least 400) and `admission webhook "<name>" denied the request: <message>`;
 * a webhook that cannot be called fails the write with 500 `failed calling webhook "<name>": ...` under
 * `failurePolicy: Fail` and is skipped under `Ignore`. Warnings go to the client.
 *
 * Easy to get wrong: {@link active} is the one check a write pays when no configuration is stored; the direct
 * methods of the server (`server.create(...)`) never call webhooks, as nothing but HTTP requests goes through
 * kube-apiserver's admission either. `reinvocationPolicy: IfNeeded` is treated as `Never`.
 */
export class Admission {
  private readonly compiled = new WeakMap<KubeObject, Webhook[]>();

  constructor(private readonly store: ObjectStore) {}

  /** True when a webhook configuration is stored; writes then stop at their admission points. */
  active(): boolean {
    return (this.store.table(VALIDATING_GVR)?.size ?? 0) > 0 || (this.store.table(MUTATING_GVR)?.size ?? 0) > 0;
  }

  /**
   * Runs the write `start` makes (with `admission: true` in its options), calling the webhooks at each point;
   * starts it over when its object changed meanwhile (a 409 Conflict after a few tries).
   */
  async run<T>(start: () => WriteSteps<T>, info: AdmissionRequestInfo): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const steps = start();
      try {
        let step = steps.next();
        while (step.done !== true) {
          const point = step.value;
          const answer = point.phase === 'mutating' ? await this.mutate(point, info) : await this.validate(point, info);
          step = steps.next(answer);
        }
        return step.value;
      } catch (err) {
        if (!(err instanceof StaleWrite)) throw err;
        if (attempt >= ATTEMPTS) throw conflict(err.resource, err.objectName);
      }
    }
  }

  /** The webhooks of every stored configuration of one type: configurations by name, webhooks in their order. */
  private webhooks(type: 'validating' | 'mutating'): Webhook[] {
    const table = this.store.table(type === 'validating' ? VALIDATING_GVR : MUTATING_GVR);
    if (table === undefined || table.size === 0) return [];
    const out: Webhook[] = [];
    for (const config of table.values()) {
      let hooks = this.compiled.get(config);
      if (hooks === undefined) {
        hooks = webhooksOf(config, type);
        this.compiled.set(config, hooks);
      }
      out.push(...hooks);
    }
    return out;
  }

  private matching(type: 'validating' | 'mutating', point: AdmissionPoint, object: KubeObject | undefined): Webhook[] {
    const hooks = this.webhooks(type);
    if (hooks.length === 0) return [];
    const def = point.table.def;
    const target: AdmissionTarget = {
      operation: point.operation,
      group: def.group,
      version: def.version,
      resource: def.resource,
      subresource: point.subresource ?? '',
      namespaced: def.namespaced,
      object,
      oldObject: point.oldObject,
    };
    let labels: Record<string, string> | undefined;
    const namespaceLabels = (): Record<string, string> => {
      labels ??= (this.store.table(NAMESPACES)?.get(point.namespace)?.metadata.labels as Record<string, string> | undefined) ?? {};
      return labels;
    };
    return hooks.filter((h) => webhookMatches(h, target, namespaceLabels));
  }

  private async mutate(point: AdmissionPoint, info: AdmissionRequestInfo): Promise<KubeObject | undefined> {
    let object = point.object;
    for (const hook of this.matching('mutating', point, object)) {
      const uid = randomUUID();
      const answer = await this.call(hook, uid, review(point, object, uid, info));
      if (answer === undefined) continue;
      info.warnings.push(...answer.warnings);
      if (!answer.allowed) throw denial(hook.name, answer.status);
      if (answer.patch !== undefined && object !== undefined) object = patched(hook.name, object, answer.patch);
    }
    return object;
  }

  private async validate(point: AdmissionPoint, info: AdmissionRequestInfo): Promise<undefined> {
    const hooks = this.matching('validating', point, point.object);
    if (hooks.length === 0) return undefined;
    const answers = await Promise.allSettled(
      hooks.map((hook) => {
        const uid = randomUUID();
        return this.call(hook, uid, review(point, point.object, uid, info));
      }),
    );
    // Every answer is read; the first refusal in configuration order is the one the client gets.
    let refusal: unknown;
    answers.forEach((settled, i) => {
      if (settled.status === 'rejected') {
        refusal ??= settled.reason;
        return;
      }
      const answer = settled.value;
      if (answer === undefined) return;
      info.warnings.push(...answer.warnings);
      if (!answer.allowed) refusal ??= denial(hooks[i]!.name, answer.status);
    });
    if (refusal !== undefined) throw refusal;
    return undefined;
  }

  /** Calls `hook`; a call that fails is skipped (undefined) under Ignore and refuses the write under Fail. */
  private async call(hook: Webhook, uid: string, body: unknown): Promise<WebhookAnswer | undefined> {
    try {
      return await callWebhook(hook, uid, body);
    } catch (err) {
      if (!(err instanceof WebhookCallError)) throw err;
      if (hook.failurePolicy === 'Ignore') return undefined;
      throw internalError(`failed calling webhook "${hook.name}": ${err.message}`);
    }
  }
}

/** The AdmissionReview v1 for a point, as kube-apiserver sends it. */
function review(point: AdmissionPoint, object: KubeObject | undefined, uid: string, info: AdmissionRequestInfo): unknown {
  const def = point.table.def;
  const kind = { group: def.group, version: def.version, kind: def.kind };
  const resource = { group: def.group, version: def.version, resource: def.resource };
  const optionsKind = point.operation === 'CREATE' ? 'CreateOptions' : point.operation === 'UPDATE' ? 'UpdateOptions' : 'DeleteOptions';
  const options: Record<string, unknown> = { kind: optionsKind, apiVersion: 'meta.k8s.io/v1' };
  if (point.operation !== 'DELETE') {
    if (info.fieldManager !== undefined) options['fieldManager'] = info.fieldManager;
    if (info.fieldValidation !== undefined) options['fieldValidation'] = info.fieldValidation;
  }
  const request: Record<string, unknown> = { uid, kind, resource };
  if (point.subresource !== undefined) request['subResource'] = point.subresource;
  request['requestKind'] = kind;
  request['requestResource'] = resource;
  if (point.subresource !== undefined) request['requestSubResource'] = point.subresource;
  if (point.name !== '') request['name'] = point.name;
  if (point.namespace !== '') request['namespace'] = point.namespace;
  request['operation'] = point.operation;
  request['userInfo'] = ADMISSION_USER;
  request['object'] = object ?? null;
  request['oldObject'] = point.oldObject ?? null;
  request['dryRun'] = false;
  request['options'] = options;
  return { kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1', request };
}

/** A webhook's refusal as kube-apiserver answers it: the webhook's code (400 if it gave less), reason and details. */
export function denial(webhook: string, status: Record<string, unknown> | undefined): ApiError {
  const deniedBy = `admission webhook ${JSON.stringify(webhook)} denied the request`;
  const code = typeof status?.['code'] === 'number' && status['code'] >= 400 ? status['code'] : 400;
  const given = typeof status?.['message'] === 'string' ? status['message'] : '';
  const reason = typeof status?.['reason'] === 'string' ? status['reason'] : '';
  const message = given !== '' ? `${deniedBy}: ${given}` : reason !== '' ? `${deniedBy}: ${reason}` : `${deniedBy} without explanation`;
  const body = statusBody(code, reason, message, isJsonObject(status?.['details']) ? (status['details'] as object) : undefined);
  if (reason === '') delete body.reason;
  return new ApiError(body);
}

/** `object` with a mutating webhook's JSON Patch applied; a patch that does not apply, or changes the kind, is a 500. */
function patched(webhook: string, object: KubeObject, patch: unknown): KubeObject {
  let result: unknown;
  try {
    result = jsonPatch(object, patch);
  } catch (err) {
    if (!(err instanceof JsonPatchError)) throw err;
    throw internalError(`the patch of webhook "${webhook}" does not apply: ${err.message}`);
  }
  if (!isJsonObject(result) || !isJsonObject(result['metadata'])) {
    throw internalError(`the patch of webhook "${webhook}" leaves no object with metadata`);
  }
  if (result['kind'] !== object.kind || result['apiVersion'] !== object.apiVersion) {
    throw internalError(`the patch of webhook "${webhook}" changes the object's apiVersion or kind`);
  }
  return result as KubeObject;
}
