import type { GroupVersionResource } from '@protean/core';

/** A Kubernetes object as a review carries it. */
type Obj = Record<string, unknown>;

/** What {@link admissionReview} builds a review from. */
export interface AdmissionReviewInput {
  /** The resource the request is for (its kind is read from the object's `apiVersion` and `kind`). */
  readonly resource: GroupVersionResource;
  /** Default `CREATE`. */
  readonly operation?: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  /** The object as it would be stored: required for CREATE and UPDATE. */
  readonly object?: Obj;
  /** The stored object: required for UPDATE and DELETE. */
  readonly oldObject?: Obj;
  /** Default `{ username: 'test-user', groups: ['system:authenticated'] }`. */
  readonly userInfo?: { username?: string; uid?: string; groups?: string[] };
  readonly dryRun?: boolean;
  readonly subResource?: string;
  /** Default: a new one per review. */
  readonly uid?: string;
}

/** Something that answers a review in process: `WebhookServer` of `@protean/webhooks` (its `review` method). */
export interface ReviewTarget {
  review(path: string, body: object): Promise<{ readonly status: number; readonly body: Record<string, unknown> }>;
}

/** What {@link admit} gives back: the decision, and for a mutation the object as it would be stored. */
export interface AdmissionOutcome {
  readonly allowed: boolean;
  /** The denial's code, message and reason. */
  readonly status?: { readonly code?: number; readonly message?: string; readonly reason?: string };
  readonly warnings: readonly string[];
  /** The JSON Patch a mutating webhook answered (empty when none). */
  readonly patch: readonly { op: string; path: string; value?: unknown }[];
  /** The request's object with the patch applied (the request's object when there is no patch). */
  readonly object?: Obj;
}

let reviews = 0;

/**
 * An `admission.k8s.io/v1` AdmissionReview as kube-apiserver sends it, for
 * a handler test: kind from the object, name and namespace from its
 * metadata, `requestKind`/`requestResource` the same as `kind`/`resource`.
 */
export function admissionReview(input: AdmissionReviewInput): Obj {
  const operation = input.operation ?? 'CREATE';
  if ((operation === 'CREATE' || operation === 'UPDATE') && input.object === undefined) {
    throw new TypeError(`admissionReview: a ${operation} review needs an object`);
  }
  if ((operation === 'UPDATE' || operation === 'DELETE') && input.oldObject === undefined) {
    throw new TypeError(`admissionReview: a ${operation} review needs an oldObject`);
  }
  const source = (input.object ?? input.oldObject ?? {}) as {
    apiVersion?: string;
    kind?: string;
    metadata?: { name?: string; namespace?: string };
  };
  const kind = { group: input.resource.group, version: input.resource.version, kind: source.kind ?? '' };
  const resource = { group: input.resource.group, version: input.resource.version, resource: input.resource.resource };
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: input.uid ?? `review-${++reviews}`,
      kind,
      resource,
      requestKind: kind,
      requestResource: resource,
      ...(input.subResource === undefined ? {} : { subResource: input.subResource, requestSubResource: input.subResource }),
      name: source.metadata?.name ?? '',
      ...(source.metadata?.namespace === undefined ? {} : { namespace: source.metadata.namespace }),
      operation,
      userInfo: input.userInfo ?? { username: 'test-user', groups: ['system:authenticated'] },
      object: input.object ?? null,
      oldObject: input.oldObject ?? null,
      dryRun: input.dryRun ?? false,
    },
  };
}

/** An `apiextensions.k8s.io/v1` ConversionReview of `objects` to `desiredAPIVersion`. */
export function conversionReview(objects: readonly Obj[], desiredAPIVersion: string, uid = `conversion-${++reviews}`): Obj {
  return { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid, desiredAPIVersion, objects } };
}

/**
 * Sends `review` (from {@link admissionReview}) to the webhook at `path`
 * in process and reads the answer: the decision, the warnings, and for a
 * mutation the patch and the object with it applied, so a test asserts on
 * what would be stored. Throws, naming the path, on anything but a 200 with
 * the review's uid (a malformed review, no webhook at the path).
 */
export async function admit(target: ReviewTarget, path: string, review: Obj): Promise<AdmissionOutcome> {
  const reply = await target.review(path, review);
  const request = review['request'] as { uid: string; object?: Obj | null };
  const response = reply.body['response'] as
    | { uid: string; allowed: boolean; status?: AdmissionOutcome['status']; warnings?: string[]; patchType?: string; patch?: string }
    | undefined;
  if (reply.status !== 200 || response === undefined) {
    throw new Error(`admit ${path}: answered ${reply.status} ${JSON.stringify(reply.body)}`);
  }
  if (response.uid !== request.uid) throw new Error(`admit ${path}: answered uid ${response.uid} to review ${request.uid}`);
  const patch =
    response.patch === undefined ? [] : (JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')) as AdmissionOutcome['patch']);
  const original = request.object ?? undefined;
  return {
    allowed: response.allowed,
    ...(response.status === undefined ? {} : { status: response.status }),
    warnings: response.warnings ?? [],
    patch,
    ...(original === undefined ? {} : { object: applyJsonPatch(original, patch) }),
  };
}

/** Applies `add`, `replace` and `remove` operations (what webhooks answer) to a copy of `target`. */
function applyJsonPatch(target: Obj, ops: AdmissionOutcome['patch']): Obj {
  const root = { doc: structuredClone(target) as unknown };
  for (const op of ops) {
    const tokens =
      op.path === ''
        ? []
        : op.path
            .slice(1)
            .split('/')
            .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
    let parent: unknown = root;
    let key: string = 'doc';
    for (const token of tokens) {
      parent = (parent as Record<string, unknown>)[key];
      key = token;
      if (parent === null || typeof parent !== 'object') throw new Error(`JSON Patch ${op.op} ${op.path}: no such path`);
    }
    if (Array.isArray(parent)) {
      const index = key === '-' ? parent.length : Number(key);
      if (op.op === 'remove') parent.splice(index, 1);
      else if (op.op === 'add') parent.splice(index, 0, op.value);
      else parent[index] = op.value;
    } else if (op.op === 'remove') delete (parent as Record<string, unknown>)[key];
    else if (op.op === 'add' || op.op === 'replace') (parent as Record<string, unknown>)[key] = op.value;
    else throw new Error(`JSON Patch: ${op.op} is not an operation a webhook answers`);
  }
  return root.doc as Obj;
}
