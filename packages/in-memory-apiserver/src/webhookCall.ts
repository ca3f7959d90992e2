import { request } from 'node:https';
import { isJsonObject } from './mergePatch.js';
import type { Webhook } from './webhookRules.js';

/** A webhook that could not be called, or answered something that is not a review: its failurePolicy decides. */
export class WebhookCallError extends Error {
  override readonly name = 'WebhookCallError';
}

/** What a webhook answered, read from its AdmissionReview. */
export interface WebhookAnswer {
  readonly allowed: boolean;
  /** `response.status` of a denial. */
  readonly status: Record<string, unknown> | undefined;
  /** The decoded JSON Patch of a mutating webhook, if it sent one. */
  readonly patch: unknown;
  readonly warnings: readonly string[];
}

/** Longest answer read from a webhook. */
const MAX_ANSWER_BYTES = 3 * 1024 * 1024;

/** The cause of a failed request, worded as kube-apiserver's HTTP client words the common ones. */
function causeOf(err: NodeJS.ErrnoException & { address?: string; port?: number }, timedOut: boolean): string {
  if (timedOut) return 'context deadline exceeded';
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${err.address ?? ''}:${err.port ?? ''}: connect: connection refused`;
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    default:
      return err.message;
  }
}

/**
 * POSTs `review` (an AdmissionReview v1) to the webhook's URL with `?timeout=<n>s`, trusting only its caBundle,
 * and reads the answer. Throws {@link WebhookCallError} with kube-apiserver's wording (`failed to call webhook:
 * Post "<url>": <cause>`, `received invalid webhook response: ...`) when the call fails, times out
 * (`timeoutSeconds`) or the answer is not a review of this request.
 */
export async function callWebhook(hook: Webhook, uid: string, review: unknown): Promise<WebhookAnswer> {
  if (hook.broken !== undefined) throw new WebhookCallError(`the webhook configuration cannot be used: ${hook.broken}`);
  if (hook.url === undefined) {
    throw new WebhookCallError(
      hook.service
        ? 'clientConfig.service is not supported by the in-memory API server (it has no cluster network): use clientConfig.url'
        : 'clientConfig has neither url nor service',
    );
  }
  let target: URL;
  try {
    target = new URL(hook.url);
  } catch {
    throw new WebhookCallError(`clientConfig.url ${JSON.stringify(hook.url)} is not a URL`);
  }
  target.searchParams.set('timeout', `${hook.timeoutSeconds}s`);
  const shown = target.toString();
  if (target.protocol !== 'https:') throw new WebhookCallError(`failed to call webhook: Post "${shown}": only https URLs are called`);
  const body = JSON.stringify(review);
  const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    let timedOut = false;
    const req = request(
      target,
      {
        method: 'POST',
        agent: false,
        ...(hook.caPem === undefined ? {} : { ca: hook.caPem }),
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_ANSWER_BYTES) req.destroy(new Error(`the answer is larger than ${MAX_ANSWER_BYTES} bytes`));
          else chunks.push(c);
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
        });
        // Cut off after the headers (the webhook server stopped, say): the call failed, never left hanging.
        res.on('error', (err: NodeJS.ErrnoException) => {
          clearTimeout(timer);
          reject(new WebhookCallError(`failed to call webhook: Post "${shown}": ${causeOf(err, timedOut)}`));
        });
        res.on('close', () => {
          if (res.complete) return;
          clearTimeout(timer);
          reject(new WebhookCallError(`failed to call webhook: Post "${shown}": the answer was cut off`));
        });
      },
    );
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy(new Error('timed out'));
    }, hook.timeoutSeconds * 1000);
    req.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new WebhookCallError(`failed to call webhook: Post "${shown}": ${causeOf(err, timedOut)}`));
    });
    req.end(body);
  });
  if (status < 200 || status > 299) {
    throw new WebhookCallError(`failed to call webhook: the server answered HTTP ${status}: ${text.slice(0, 200)}`);
  }
  return readAnswer(text, uid);
}

function invalidAnswer(why: string): WebhookCallError {
  return new WebhookCallError(`received invalid webhook response: ${why}`);
}

/** Reads an AdmissionReview v1 answer to the request `uid`. */
export function readAnswer(text: string, uid: string): WebhookAnswer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw invalidAnswer(`the answer is not JSON: ${(err as Error).message}`);
  }
  if (!isJsonObject(parsed)) throw invalidAnswer('the answer is not a JSON object');
  if (parsed['apiVersion'] !== 'admission.k8s.io/v1' || parsed['kind'] !== 'AdmissionReview') {
    throw invalidAnswer(`expected admission.k8s.io/v1 AdmissionReview, got ${String(parsed['apiVersion'])} ${String(parsed['kind'])}`);
  }
  const response = parsed['response'];
  if (!isJsonObject(response)) throw invalidAnswer('response is missing');
  if (response['uid'] !== uid) throw invalidAnswer(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(response['uid'])}`);
  let patch: unknown;
  if (typeof response['patch'] === 'string' && response['patch'] !== '') {
    if (response['patchType'] !== 'JSONPatch') {
      throw invalidAnswer(`unsupported patchType ${JSON.stringify(response['patchType'])}: only JSONPatch is`);
    }
    try {
      patch = JSON.parse(Buffer.from(response['patch'], 'base64').toString('utf8'));
    } catch (err) {
      throw invalidAnswer(`the patch is not JSON: ${(err as Error).message}`);
    }
  }
  const warnings = Array.isArray(response['warnings']) ? (response['warnings'] as unknown[]).filter((w) => typeof w === 'string') : [];
  return {
    allowed: response['allowed'] === true,
    status: isJsonObject(response['status']) ? response['status'] : undefined,
    patch,
    warnings: warnings as string[],
  };
}
