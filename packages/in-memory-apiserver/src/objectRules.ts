import { randomUUID } from 'node:crypto';
import { deepEqual, omit } from './deepEqual.js';
import { isJsonObject } from './mergePatch.js';
import type { ServedResource } from './ServedResource.js';
import { badRequest, invalid, serverError, type FieldCause } from './statusErrors.js';
import type { KubeObject, KubeObjectMeta } from './types.js';

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const GENERATE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

let lastSecond = -1;
let lastStamp = '';

/** Server time as the API serialises it (RFC 3339, whole seconds, UTC). */
export function nowTimestamp(): string {
  const second = Math.floor(Date.now() / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastStamp = new Date(second * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  return lastStamp;
}

/** Throws 422 Invalid for `causes` against `def`'s kind. */
function fail(def: ServedResource, name: string, causes: FieldCause[]): never {
  throw invalid(def.group, def.kind, name, causes);
}

/**
 * Checks the body of a create/update names this resource's kind and carries
 * an object `metadata`; fills in a missing `apiVersion`/`kind`, as the real
 * server does for built-in types. Returns a private copy.
 */
export function normaliseBody(def: ServedResource, body: unknown): KubeObject {
  if (!isJsonObject(body)) throw badRequest('the body of the request must be a JSON object');
  const obj = structuredClone(body);
  if (obj['kind'] === undefined || obj['kind'] === '') obj['kind'] = def.kind;
  if (obj['apiVersion'] === undefined || obj['apiVersion'] === '') obj['apiVersion'] = def.apiVersion;
  if (obj['kind'] !== def.kind || obj['apiVersion'] !== def.apiVersion) {
    throw badRequest(
      `the object provided is unrecognized (must be of type ${def.kind}): apiVersion ${JSON.stringify(obj['apiVersion'])}, kind ${JSON.stringify(obj['kind'])} (expected ${def.apiVersion} ${def.kind})`,
    );
  }
  if (obj['metadata'] === undefined) obj['metadata'] = {};
  if (!isJsonObject(obj['metadata'])) throw badRequest('metadata must be a JSON object');
  return obj as KubeObject;
}

function validateName(def: ServedResource, name: string): void {
  const isNamespace = def.group === '' && def.resource === 'namespaces';
  const [re, max, msg] = isNamespace ? [DNS_LABEL, 63, LABEL_MSG] : [DNS_SUBDOMAIN, 253, SUBDOMAIN_MSG];
  if (name.length > max) {
    fail(def, name, [
      { field: 'metadata.name', reason: 'FieldValueInvalid', message: `Invalid value: "${name}": must be no more than ${max} characters` },
    ]);
  }
  if (!re.test(name)) {
    fail(def, name, [{ field: 'metadata.name', reason: 'FieldValueInvalid', message: `Invalid value: "${name}": ${msg}` }]);
  }
}

function generatedName(prefix: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += GENERATE_ALPHABET[Math.floor(Math.random() * GENERATE_ALPHABET.length)];
  return prefix + suffix;
}

/**
 * Resolves the namespace of a write the way the real server does: the
 * object's namespace must match the request's; an empty one takes the
 * request's; cluster-scoped objects lose theirs.
 */
export function resolveNamespace(def: ServedResource, meta: KubeObjectMeta, requestNamespace: string | undefined): string {
  if (!def.namespaced) return '';
  const own = typeof meta.namespace === 'string' ? meta.namespace : '';
  if (requestNamespace === undefined || requestNamespace === '') {
    if (own === '') {
      fail(def, typeof meta.name === 'string' ? meta.name : '', [
        { field: 'metadata.namespace', reason: 'FieldValueRequired', message: 'Required value' },
      ]);
    }
    return own;
  }
  if (own !== '' && own !== requestNamespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  return requestNamespace;
}

/**
 * Builds the object to store for a create (without `resourceVersion` and
 * `managedFields`, which the store stamps): identity, timestamps,
 * generation; status dropped when the status subresource owns it.
 */
export function prepareCreate(def: ServedResource, obj: KubeObject, namespace: string): KubeObject {
  const meta = obj.metadata;
  if (meta.resourceVersion !== undefined && meta.resourceVersion !== '') {
    // The real storage layer refuses this with a reason-less 500, not a 4xx.
    throw serverError('resourceVersion should not be set on objects to be created');
  }
  let name = typeof meta.name === 'string' ? meta.name : '';
  if (name === '' && typeof meta.generateName === 'string' && meta.generateName !== '') {
    name = generatedName(meta.generateName);
  }
  if (name === '') {
    fail(def, '', [{ field: 'metadata.name', reason: 'FieldValueRequired', message: 'Required value: name or generateName is required' }]);
  }
  validateName(def, name);
  const out: KubeObject = { ...obj, metadata: { ...meta, name } };
  if (def.namespaced) out.metadata.namespace = namespace;
  else delete out.metadata.namespace;
  out.metadata.uid = randomUUID();
  out.metadata.creationTimestamp = nowTimestamp();
  delete out.metadata.deletionTimestamp;
  delete out.metadata.deletionGracePeriodSeconds;
  delete out.metadata.managedFields;
  if (def.tracksGeneration) out.metadata.generation = 1;
  else delete out.metadata.generation;
  if (def.hasStatusSubresource) delete out['status'];
  return out;
}

/** The part of an object whose change bumps `metadata.generation`. */
function specPart(def: ServedResource, obj: KubeObject): Record<string, unknown> {
  return omit(obj, def.hasStatusSubresource ? ['metadata', 'status'] : ['metadata']);
}

/**
 * Builds the object to store for an update of `old` with `input` (a PUT
 * body, or a patched copy of `old`), through the main endpoint or `/status`.
 *
 * Easy to get wrong: through `/status` only `status` (and nothing of
 * metadata) changes; through the main endpoint `status` is kept from `old`
 * when the status subresource owns it. System metadata always comes from
 * `old`.
 */
export function prepareUpdate(def: ServedResource, old: KubeObject, input: KubeObject, subresource: 'status' | undefined): KubeObject {
  const name = old.metadata.name;
  if (input.metadata.uid !== undefined && input.metadata.uid !== '' && input.metadata.uid !== old.metadata.uid) {
    fail(def, name, [
      { field: 'metadata.uid', reason: 'FieldValueInvalid', message: `Invalid value: "${String(input.metadata.uid)}": field is immutable` },
    ]);
  }
  let out: KubeObject;
  if (subresource === 'status') {
    out = structuredClone(old);
    if (input['status'] === undefined) delete out['status'];
    else out['status'] = structuredClone(input['status']);
  } else {
    out = structuredClone(input);
    if (def.hasStatusSubresource) {
      if (old['status'] === undefined) delete out['status'];
      else out['status'] = structuredClone(old['status']);
    }
    const m = out.metadata;
    m.name = name;
    if (def.namespaced) m.namespace = old.metadata.namespace as string;
    else delete m.namespace;
    for (const k of ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation'] as const) {
      if (old.metadata[k] === undefined) delete m[k];
      else (m as Record<string, unknown>)[k] = old.metadata[k];
    }
    if (old.metadata.deletionTimestamp !== undefined) {
      const before = new Set(old.metadata.finalizers ?? []);
      const added = (m.finalizers ?? []).filter((f) => !before.has(f));
      if (added.length > 0) {
        fail(def, name, [
          {
            field: 'metadata.finalizers',
            reason: 'FieldValueForbidden',
            message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
          },
        ]);
      }
    }
  }
  out.metadata.resourceVersion = old.metadata.resourceVersion as string;
  out.metadata.managedFields = old.metadata.managedFields ?? [];
  if (def.tracksGeneration && subresource !== 'status' && !deepEqual(specPart(def, old), specPart(def, out))) {
    out.metadata.generation = (old.metadata.generation ?? 0) + 1;
  }
  return out;
}

/** True when `next` differs from `old` in anything but `managedFields` (a no-op write is not committed). */
export function changed(old: KubeObject, next: KubeObject): boolean {
  const strip = (o: KubeObject): Record<string, unknown> => ({ ...o, metadata: omit(o.metadata, ['managedFields']) });
  return !deepEqual(strip(old), strip(next));
}

/** ObjectMeta's fields, in the order the real server serialises them (`selfLink`, never written any more, aside). */
export const METADATA_ORDER = [
  'name',
  'generateName',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
];

/** `obj` with keys in the order the real server serialises them (kind, apiVersion, metadata, rest). */
export function canonicalOrder(obj: KubeObject): KubeObject {
  const metadata: Record<string, unknown> = {};
  for (const k of METADATA_ORDER) if (obj.metadata[k] !== undefined) metadata[k] = obj.metadata[k];
  for (const [k, v] of Object.entries(obj.metadata)) if (!(k in metadata) && v !== undefined) metadata[k] = v;
  const { kind, apiVersion, metadata: _m, ...rest } = obj;
  return { kind, apiVersion, metadata: metadata as KubeObjectMeta, ...rest };
}
