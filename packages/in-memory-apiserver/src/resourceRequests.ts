import type { IncomingMessage, ServerResponse } from 'node:http';
import { managerOf, parseApplyBody, parseJsonBody, readBody, sendJson, sendJsonText } from './httpIo.js';
import { jsonPatch } from './jsonPatch.js';
import { listPage } from './listPage.js';
import { isJsonObject, mergePatch } from './mergePatch.js';
import { negotiate } from './negotiate.js';
import { ObjectFilter } from './ObjectFilter.js';
import type { FieldValidation } from './crdSchema.js';
import type { Admission } from './Admission.js';
import { settle, type ApplyOptions, type ObjectStore, type WriteOptions, type WriteSteps } from './ObjectStore.js';
import type { ResourceTable } from './ResourceTable.js';
import { listItemJson, META_API_VERSION, objectJson } from './serialize.js';
import {
  badRequest,
  invalid,
  methodNotAllowed,
  notFound,
  patchOptionsInvalid,
  routeNotFound,
  unsupportedPatchType,
} from './statusErrors.js';
import type { KubeObject } from './types.js';
import type { WatchHub } from './WatchHub.js';

/** A request for a served resource, already matched to its table. */
export interface ResourceRequest {
  req: IncomingMessage;
  res: ServerResponse;
  query: URLSearchParams;
  table: ResourceTable;
  namespace: string | undefined;
  name: string | undefined;
  subresource: string | undefined;
  watchPath: boolean;
  /** Calls the admission webhooks of writes. */
  admission: Admission;
}

/**
 * Runs a write: at once when no webhook configuration is stored, else through admission (which stops it at its
 * admission points to call the matching webhooks). `opts` are the options `steps` writes with.
 */
function runWrite<T>(r: ResourceRequest, opts: { admission?: boolean; warnings?: string[] }, steps: () => WriteSteps<T>): T | Promise<T> {
  if (!r.admission.active()) return settle(steps());
  opts.admission = true;
  const info: { warnings: string[]; fieldManager?: string; fieldValidation?: string } = { warnings: opts.warnings ?? [] };
  const fieldManager = r.query.get('fieldManager') ?? '';
  if (fieldManager !== '') info.fieldManager = fieldManager;
  const fieldValidation = r.query.get('fieldValidation') ?? '';
  if (fieldValidation !== '') info.fieldValidation = fieldValidation;
  return r.admission.run(steps, info);
}

function isWatch(r: ResourceRequest): boolean {
  const w = r.query.get('watch');
  return r.watchPath || w === 'true' || w === '1';
}

/**
 * Serves the verbs of one resource: list, watch, create and deletecollection
 * on collections; get, update, patch and delete on objects; get, update and
 * patch on `/status`.
 */
export async function serveResource(store: ObjectStore, hub: WatchHub, r: ResourceRequest): Promise<void> {
  const { table, req, res } = r;
  const def = table.def;
  const method = (req.method ?? 'GET').toUpperCase();
  if (def.namespaced && r.namespace === undefined && r.name !== undefined) throw routeNotFound();
  if (r.subresource !== undefined && (r.subresource !== 'status' || !def.hasStatusSubresource)) throw routeNotFound();
  const accept = req.headers.accept;
  if (r.name === undefined || r.watchPath) {
    if (method === 'GET' && isWatch(r)) {
      const query = new URLSearchParams(r.query);
      if (r.name !== undefined) {
        const fs = query.get('fieldSelector');
        query.set('fieldSelector', `${fs === null || fs === '' ? '' : `${fs},`}metadata.name=${r.name}`);
      }
      const partial = negotiate(accept, 'object') === 'partial';
      hub.open({ table, namespace: r.namespace, filter: ObjectFilter.fromQuery(query), partial, query }, res);
      return;
    }
    if (r.name !== undefined) throw methodNotAllowed();
    if (method === 'GET') return serveList(store, r, negotiate(accept, 'list') === 'partial');
    if (method === 'POST') {
      if (def.namespaced && r.namespace === undefined) throw methodNotAllowed();
      const body = parseJsonBody(await readBody(req));
      const opts = writeOptions(r);
      const created = await runWrite(r, opts, () => store.creating(table, body, opts));
      return sendJsonText(res, 201, objectJson(created, false), warningHeader(opts.warnings));
    }
    if (method === 'DELETE') return await serveDeleteCollection(store, r);
    throw methodNotAllowed();
  }
  const name = r.name;
  const namespace = r.namespace ?? '';
  switch (method) {
    case 'GET': {
      const partial = negotiate(accept, 'object') === 'partial';
      const obj = table.get(def.namespaced ? `${namespace}/${name}` : name);
      if (obj === undefined) throw notFound(def, name);
      return sendJsonText(res, 200, objectJson(obj, partial));
    }
    case 'PUT': {
      const body = parseJsonBody(await readBody(req));
      const opts = writeOptions(r);
      const updated = await runWrite(r, opts, () => store.replacing(table, body, opts));
      return sendJsonText(res, 200, objectJson(updated, false), warningHeader(opts.warnings));
    }
    case 'PATCH': {
      const contentType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
      if (contentType === APPLY_PATCH) return serveApply(store, r, name, namespace);
      if (r.query.has('force')) {
        throw patchOptionsInvalid('force', 'FieldValueForbidden', 'Forbidden: may not be specified for non-apply patch');
      }
      const patchBody = parseJsonBody(await readBody(req));
      let apply: (current: KubeObject) => unknown;
      if (contentType === 'application/merge-patch+json' || contentType === 'application/strategic-merge-patch+json') {
        // Strategic merge is treated as a JSON merge patch (no per-field list merge keys).
        if (!isJsonObject(patchBody)) throw badRequest('a merge patch must be a JSON object');
        apply = (current) => mergePatch(current, patchBody);
      } else if (contentType === 'application/json-patch+json') {
        apply = (current) => jsonPatch(current, patchBody);
      } else {
        throw unsupportedPatchType(contentType);
      }
      const opts = writeOptions(r);
      const patched = await runWrite(r, opts, () => store.patching(table, namespace, name, apply, opts));
      return sendJsonText(res, 200, objectJson(patched, false), warningHeader(opts.warnings));
    }
    case 'DELETE': {
      const text = await readBody(req);
      const options = text.trim() === '' ? {} : parseJsonBody(text);
      const pre = isJsonObject(options) && isJsonObject(options['preconditions']) ? options['preconditions'] : {};
      const preconditions: { uid?: string; resourceVersion?: string } = {};
      if (typeof pre['uid'] === 'string') preconditions.uid = pre['uid'];
      if (typeof pre['resourceVersion'] === 'string') preconditions.resourceVersion = pre['resourceVersion'];
      const opts: { admission?: boolean; warnings: string[] } = { warnings: [] };
      const { object, removed } = await runWrite(r, opts, () => store.deleting(table, namespace, name, preconditions, opts));
      const headers = warningHeader(opts.warnings);
      if (!removed || def.deleteReturnsObject) return sendJsonText(res, 200, objectJson(object, false), headers);
      const details: Record<string, unknown> = { name };
      if (def.group !== '') details['group'] = def.group;
      details['kind'] = def.resource;
      details['uid'] = object.metadata.uid;
      return sendJson(res, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details }, headers);
    }
    default:
      throw methodNotAllowed();
  }
}

const APPLY_PATCH = 'application/apply-patch+yaml';

/**
 * Server-side apply: `fieldManager` is required, `force=true` takes fields
 * over; answers 201 when the apply created the object. The body is YAML
 * (JSON being YAML too), read with YAML 1.1's scalars as kube-apiserver
 * reads it (`yes` is a boolean there).
 */
async function serveApply(store: ObjectStore, r: ResourceRequest, name: string, namespace: string): Promise<void> {
  const manager = r.query.get('fieldManager') ?? '';
  if (manager === '') throw patchOptionsInvalid('fieldManager', 'FieldValueRequired', 'Required value: is required for apply patch');
  // Go's strconv.ParseBool; anything else reads as false, as on the real server.
  const force = ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(r.query.get('force') ?? '');
  const body = parseApplyBody(await readBody(r.req));
  const opts: ApplyOptions = { manager, force, warnings: [] };
  const fieldValidation = fieldValidationOf(r.query, 'PatchOptions');
  if (fieldValidation !== undefined) opts.fieldValidation = fieldValidation;
  if (r.subresource === 'status') opts.subresource = 'status';
  const { object, created } = await runWrite(r, opts, () => store.applying(r.table, namespace, name, body, opts));
  sendJsonText(r.res, created ? 201 : 200, objectJson(object, false), warningHeader(opts.warnings));
}

/**
 * `?fieldValidation=`, as kube-apiserver reads it; unset or empty: undefined (the server's default, `Warn` unless
 * the test server was started otherwise); anything else is a 422 of the verb's options.
 */
function fieldValidationOf(
  query: URLSearchParams,
  options: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions',
): FieldValidation | undefined {
  const value = query.get('fieldValidation') ?? '';
  if (value === '') return undefined;
  if (value === 'Warn') return 'Warn';
  if (value === 'Strict' || value === 'Ignore') return value;
  throw invalid('meta.k8s.io', options, '', [
    {
      field: 'fieldValidation',
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(value)}: supported values: "", "Ignore", "Strict", "Warn"`,
    },
  ]);
}

/** The `Warning` header of a write's warnings (RFC 7234 form, as kube-apiserver sends them), or none. */
function warningHeader(warnings: readonly string[] | undefined): Record<string, string> {
  if (warnings === undefined || warnings.length === 0) return {};
  return { Warning: warnings.map((w) => `299 - ${JSON.stringify(w)}`).join(', ') };
}

function writeOptions(r: ResourceRequest): WriteOptions {
  const method = (r.req.method ?? 'GET').toUpperCase();
  const options = method === 'POST' ? 'CreateOptions' : method === 'PUT' ? 'UpdateOptions' : 'PatchOptions';
  const opts: WriteOptions = { manager: managerOf(r.req, r.query), warnings: [] };
  const fieldValidation = fieldValidationOf(r.query, options);
  if (fieldValidation !== undefined) opts.fieldValidation = fieldValidation;
  if (r.namespace !== undefined) opts.namespace = r.namespace;
  if (r.name !== undefined) opts.name = r.name;
  if (r.subresource === 'status') opts.subresource = 'status';
  return opts;
}

function serveList(store: ObjectStore, r: ResourceRequest, partial: boolean): void {
  const limitText = r.query.get('limit');
  let limit: number | undefined;
  if (limitText !== null && limitText !== '') {
    if (!/^[0-9]+$/.test(limitText)) throw badRequest(`limit: Invalid value: "${limitText}": must be a non-negative integer`);
    limit = Number(limitText);
  }
  const page = listPage(
    r.table,
    {
      namespace: r.namespace,
      filter: ObjectFilter.fromQuery(r.query),
      limit,
      continueToken: r.query.get('continue') ?? undefined,
      resourceVersion: r.query.get('resourceVersion') ?? undefined,
      resourceVersionMatch: r.query.get('resourceVersionMatch') ?? undefined,
    },
    store.currentRv(),
  );
  const meta: Record<string, unknown> = { resourceVersion: page.resourceVersion };
  if (page.continue !== undefined) meta['continue'] = page.continue;
  if (page.remainingItemCount !== undefined) meta['remainingItemCount'] = page.remainingItemCount;
  const def = r.table.def;
  const kind = partial ? 'PartialObjectMetadataList' : def.listKind;
  const apiVersion = partial ? META_API_VERSION : def.apiVersion;
  const items = page.items.map((o) => listItemJson(o, partial, def.builtin)).join(',');
  sendJsonText(r.res, 200, `{"kind":"${kind}","apiVersion":"${apiVersion}","metadata":${JSON.stringify(meta)},"items":[${items}]}`);
}

async function serveDeleteCollection(store: ObjectStore, r: ResourceRequest): Promise<void> {
  const def = r.table.def;
  if (def.namespaced && r.namespace === undefined) throw methodNotAllowed();
  const page = listPage(r.table, { namespace: r.namespace, filter: ObjectFilter.fromQuery(r.query) }, store.currentRv());
  const deleted: KubeObject[] = [];
  for (const o of page.items) {
    const opts: { admission?: boolean } = {};
    const namespace = o.metadata.namespace ?? '';
    deleted.push((await runWrite(r, opts, () => store.deleting(r.table, namespace, o.metadata.name, {}, opts))).object);
  }
  const items = deleted.map((o) => listItemJson(o, false, def.builtin)).join(',');
  // The list read before deleting: its resourceVersion (custom resources also send an empty continue).
  const meta = def.builtin ? { resourceVersion: page.resourceVersion } : { continue: '', resourceVersion: page.resourceVersion };
  sendJsonText(
    r.res,
    200,
    `{"kind":"${def.listKind}","apiVersion":"${def.apiVersion}","metadata":${JSON.stringify(meta)},"items":[${items}]}`,
  );
}
