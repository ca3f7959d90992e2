import { deepEqual } from './deepEqual.js';
import { applyDefaults, decodeWithSchema, validateWithSchema, type FieldValidation } from './crdSchema.js';
import { gvrKey, type GroupVersionResource } from '@protean/core';
import { defaultNamespace, defaultSecret, foldStringData } from './builtins.js';
import { CRD_GVR, crdStatus, crdToDefinition } from './crd.js';
import { recordManagedFields } from './managedFields.js';
import { canonicalOrder, changed, normaliseBody, nowTimestamp, prepareCreate, prepareUpdate, resolveNamespace } from './objectRules.js';
import { objectKey, ResourceTable, type StoreEvent } from './ResourceTable.js';
import { ownershipChanged, serverSideApply } from './serverSideApply.js';
import { isJsonObject } from './mergePatch.js';
import { toServedResource, type ServedResource } from './ServedResource.js';
import { validateLease } from './validateLease.js';
import { validateOwnerReferences } from './validateOwnerReferences.js';
import { alreadyExists, badRequest, conflict, invalid, notFound, type QualifiedResource } from './statusErrors.js';
import type { KubeObject, ManagedFieldsEntry, ResourceDefinition } from './types.js';
import { defaultWebhookConfiguration, MUTATING_GVR, VALIDATING_GVR } from './webhookRules.js';

/** Told about every committed change and every resource that stops being served. */
export interface StoreListener {
  onEvent(table: ResourceTable, event: StoreEvent): void;
  onUnregistered(table: ResourceTable): void;
}

/** Who writes and through which URL; all optional for direct store access. */
export interface WriteOptions {
  /** `managedFields` manager (the HTTP path uses the User-Agent's product). */
  manager?: string;
  /** Namespace from the request path. */
  namespace?: string;
  /** Name from the request path (PUT/PATCH/DELETE). */
  name?: string;
  subresource?: 'status';
  /** `managedFields` already worked out (server-side apply); otherwise the write is recorded as an Update. */
  managedFields?: ManagedFieldsEntry[];
  /** `?fieldValidation=` of the request; unset: the server's default (`Warn`, as kube-apiserver's). Applies to resources with a schema (custom resources). */
  fieldValidation?: FieldValidation;
  /** Where the write's warnings go (fields pruned as unknown), for the `Warning` header. */
  warnings?: string[];
  /** Stop at the admission points (see {@link WriteSteps}); only a driver that answers them may set it. */
  admission?: boolean;
}

/** Options of {@link ObjectStore.apply}. */
export interface ApplyOptions {
  /** The `fieldManager` (required by the HTTP path). */
  manager: string;
  force?: boolean;
  subresource?: 'status';
  fieldValidation?: FieldValidation;
  warnings?: string[];
  /** See {@link WriteOptions.admission}. */
  admission?: boolean;
}

/** DeleteOptions preconditions. */
export interface DeletePreconditions {
  uid?: string;
  resourceVersion?: string;
}

/** The operation of a write as admission sees it. */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE';

/**
 * A point of a write where admission looks at it, as kube-apiserver's chain does: `mutating` after the request is
 * decoded (namespace resolved, schema pruning and defaults applied), before validation; `validating` with the
 * object about to be stored, after every check but the write's own preconditions.
 */
export interface AdmissionPoint {
  readonly phase: 'mutating' | 'validating';
  readonly operation: AdmissionOperation;
  readonly table: ResourceTable;
  readonly namespace: string;
  /** Empty on a create whose name is still to be generated (mutating phase). */
  readonly name: string;
  readonly subresource: 'status' | undefined;
  /** The object written (undefined for DELETE). */
  readonly object: KubeObject | undefined;
  /** The stored object (UPDATE and DELETE). */
  readonly oldObject: KubeObject | undefined;
}

/**
 * A write in steps: with `admission` set in its options it stops at each {@link AdmissionPoint}, and the driver
 * resumes it with the object to go on with (the mutating point's answer replaces the object; the validating
 * point's is ignored). Without it the write never stops. A write resumed after the store changed under it throws
 * {@link StaleWrite} before committing anything.
 */
export type WriteSteps<T> = Generator<AdmissionPoint, T, KubeObject | undefined>;

/** The object a write stopped for admission has changed meanwhile: the driver starts the write over. */
export class StaleWrite extends Error {
  override readonly name = 'StaleWrite';
  constructor(
    readonly resource: QualifiedResource,
    readonly objectName: string,
  ) {
    super(`${resource.resource} "${objectName}" changed while admission webhooks looked at a write of it`);
  }
}

/** Runs a write that does not stop for admission. */
export function settle<T>(steps: WriteSteps<T>): T {
  const step = steps.next();
  if (step.done !== true) throw new Error('a write without admission stopped for it');
  return step.value;
}

const NAMESPACES_KEY = gvrKey({ group: '', version: 'v1', resource: 'namespaces' });
const SECRETS_KEY = gvrKey({ group: '', version: 'v1', resource: 'secrets' });
const CRD_KEY = gvrKey(CRD_GVR);
const LEASES_KEY = gvrKey({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases' });
const VALIDATING_KEY = gvrKey(VALIDATING_GVR);
const MUTATING_KEY = gvrKey(MUTATING_GVR);
const DIRECT_MANAGER = 'protean-test';

/**
 * The state of the in-memory API server: one {@link ResourceTable} per
 * served resource and the global resourceVersion counter, with the write
 * semantics of the real server (preconditions, generation, finalizers,
 * managedFields, CRDs registering resources).
 *
 * Easy to get wrong: objects returned here are the stored ones and must not
 * be mutated; callers outside the server copy them.
 */
export class ObjectStore {
  private rv = 0;
  private readonly tables = new Map<string, ResourceTable>();
  private readonly listeners = new Set<StoreListener>();
  /** CRD name -> the GVR key it registered. */
  private readonly crdResources = new Map<string, string>();

  constructor(
    private readonly historyWindow: number,
    private readonly requireNamespaces: boolean,
    /** How writes that do not say (`?fieldValidation=` unset) treat unknown fields. */
    private readonly fieldValidation: FieldValidation = 'Warn',
  ) {}

  addListener(l: StoreListener): void {
    this.listeners.add(l);
  }

  currentRv(): number {
    return this.rv;
  }

  /** Serves `def`; a definition for an already served GVR replaces it and keeps its objects. */
  register(def: ResourceDefinition): ResourceTable {
    const served = toServedResource(def);
    const existing = this.tables.get(served.key);
    if (existing !== undefined) {
      // Defaults on read: objects stored under the old schema show the new one's defaults. Every write of a CRD
      // re-registers it; only a changed schema can default anything.
      if (served.schema !== undefined && !deepEqual(served.schema, existing.def.schema)) {
        // Stored objects are never mutated (their serialisations are cached): a defaulted copy replaces each.
        for (const key of existing.sortedKeys()) {
          const defaulted = structuredClone(existing.get(key) as KubeObject);
          applyDefaults(served.schema, defaulted);
          if (!deepEqual(defaulted, existing.get(key))) existing.put(key, defaulted);
        }
      }
      existing.def = served;
      return existing;
    }
    const table = new ResourceTable(served, this.historyWindow, this.rv);
    this.tables.set(served.key, table);
    return table;
  }

  /** Stops serving `gvr`: its objects are dropped and listeners close its watches. */
  unregister(gvr: GroupVersionResource): boolean {
    const table = this.tables.get(gvrKey(gvr));
    if (table === undefined) return false;
    this.tables.delete(table.def.key);
    for (const l of this.listeners) l.onUnregistered(table);
    return true;
  }

  table(gvr: GroupVersionResource): ResourceTable | undefined {
    return this.tables.get(gvrKey(gvr));
  }

  allTables(): ResourceTable[] {
    return [...this.tables.values()];
  }

  /** Forgets every resource's history (any older resourceVersion now gets 410). */
  forgetHistory(): void {
    for (const t of this.tables.values()) t.forgetHistory(this.rv);
  }

  private commit(table: ResourceTable, type: StoreEvent['type'], key: string, object: KubeObject, prev?: KubeObject): void {
    if (type === 'DELETED') table.remove(key);
    else table.put(key, object);
    const event: StoreEvent = prev === undefined ? { type, rv: this.rv, key, object } : { type, rv: this.rv, key, object, prev };
    table.record(event);
    for (const l of this.listeners) l.onEvent(table, event);
  }

  /** Stamps resourceVersion and managedFields and puts keys in the real server's order; returns the object to store. */
  private stamp(
    def: ServedResource,
    obj: KubeObject,
    manager: string,
    subresource: 'status' | undefined,
    old?: KubeObject,
    managed?: ManagedFieldsEntry[],
  ): KubeObject {
    const entries =
      managed ?? recordManagedFields(old?.metadata.managedFields, old, obj, manager, subresource, nowTimestamp(), def.builtin);
    // As on the real server, an object no manager owns a field of has no managedFields at all.
    if (entries.length === 0) delete obj.metadata.managedFields;
    else obj.metadata.managedFields = entries;
    obj.metadata.resourceVersion = String(++this.rv);
    return canonicalOrder(obj);
  }

  create(table: ResourceTable, body: unknown, opts: WriteOptions = {}): KubeObject {
    return settle(this.creating(table, body, opts));
  }

  /** {@link create} in steps (see {@link WriteSteps}). */
  *creating(table: ResourceTable, body: unknown, opts: WriteOptions = {}): WriteSteps<KubeObject> {
    const def = table.def;
    let input = normaliseBody(def, body);
    const fieldValidation = opts.fieldValidation ?? this.fieldValidation;
    if (def.schema !== undefined) note(opts, decodeWithSchema(def, def.schema, input, fieldValidation));
    const namespace = resolveNamespace(def, input.metadata, opts.namespace);
    if (this.requireNamespaces && def.namespaced && !this.tables.get(NAMESPACES_KEY)?.has(namespace)) {
      throw notFound({ group: '', resource: 'namespaces' }, namespace);
    }
    if (opts.admission === true) {
      const name = typeof input.metadata.name === 'string' ? input.metadata.name : '';
      const point = { operation: 'CREATE', table, namespace, name, subresource: undefined, oldObject: undefined } as const;
      const mutated = yield { ...point, phase: 'mutating', object: input };
      if (mutated !== undefined && mutated !== input) {
        input = normaliseBody(def, mutated);
        // What a webhook added and the schema does not know is dropped silently, as after kube-apiserver's admission.
        if (def.schema !== undefined) decodeWithSchema(def, def.schema, input, 'Ignore');
      }
    }
    if (def.schema !== undefined) validateWithSchema(def, def.schema, input);
    const obj = prepareCreate(def, input, namespace);
    validateOwnerReferences(def, obj);
    if (def.key === LEASES_KEY) validateLease(def, obj);
    const key = objectKey(namespace, obj.metadata.name);
    if (opts.admission !== true && table.has(key)) throw alreadyExists(def, obj.metadata.name);
    if (def.key === NAMESPACES_KEY) defaultNamespace(obj);
    if (def.key === VALIDATING_KEY) defaultWebhookConfiguration(obj, 'validating');
    if (def.key === MUTATING_KEY) defaultWebhookConfiguration(obj, 'mutating');
    if (def.key === SECRETS_KEY) {
      defaultSecret(obj);
      foldStringData(obj);
    }
    let crdDef: ResourceDefinition | undefined;
    if (def.key === CRD_KEY) {
      crdDef = crdToDefinition(obj);
      obj['status'] = crdStatus(obj, crdDef, nowTimestamp());
    }
    if (opts.admission === true) {
      yield {
        phase: 'validating',
        operation: 'CREATE',
        table,
        namespace,
        name: obj.metadata.name,
        subresource: undefined,
        object: obj,
        oldObject: undefined,
      };
      if (this.tables.get(def.key) !== table) throw new StaleWrite(def, obj.metadata.name);
      // Checked by storage, after admission, as on the real server.
      if (table.has(key)) throw alreadyExists(def, obj.metadata.name);
    }
    const stored = this.stamp(def, obj, opts.manager ?? DIRECT_MANAGER, undefined, undefined, opts.managedFields);
    this.commit(table, 'ADDED', key, stored);
    if (crdDef !== undefined) this.syncCrd(stored.metadata.name, crdDef);
    return stored;
  }

  /** PUT semantics; `resourceVersion` in the body is a precondition (required unless the resource allows unconditional updates). */
  update(table: ResourceTable, body: unknown, opts: WriteOptions = {}): KubeObject {
    return settle(this.replacing(table, body, opts));
  }

  /** {@link update} in steps (see {@link WriteSteps}). */
  *replacing(table: ResourceTable, body: unknown, opts: WriteOptions = {}): WriteSteps<KubeObject> {
    const def = table.def;
    const input = normaliseBody(def, body);
    const name = typeof input.metadata.name === 'string' ? input.metadata.name : '';
    if (opts.name !== undefined && name !== opts.name) {
      throw badRequest(`the name of the object (${name}) does not match the name on the URL (${opts.name})`);
    }
    const namespace = resolveNamespace(def, input.metadata, opts.namespace);
    const old = table.get(objectKey(namespace, name));
    if (old === undefined) throw notFound(def, name);
    const rv = input.metadata.resourceVersion;
    if (rv === undefined || rv === '') {
      if (!def.allowUnconditionalUpdate) throw invalidRv(def, name);
    } else if (rv !== old.metadata.resourceVersion) {
      throw conflict(def, name);
    }
    return yield* this.updating(table, old, input, opts);
  }

  /**
   * PATCH semantics: `apply` computes the patched body from a copy of the
   * current object; a `metadata.resourceVersion` the patch changed is a
   * precondition.
   */
  patch(
    table: ResourceTable,
    namespace: string,
    name: string,
    apply: (current: KubeObject) => unknown,
    opts: WriteOptions = {},
  ): KubeObject {
    return settle(this.patching(table, namespace, name, apply, opts));
  }

  /** {@link patch} in steps (see {@link WriteSteps}). */
  *patching(
    table: ResourceTable,
    namespace: string,
    name: string,
    apply: (current: KubeObject) => unknown,
    opts: WriteOptions = {},
  ): WriteSteps<KubeObject> {
    const def = table.def;
    const old = table.get(objectKey(def.namespaced ? namespace : '', name));
    if (old === undefined) throw notFound(def, name);
    const input = normaliseBody(def, apply(structuredClone(old)));
    const rv = input.metadata.resourceVersion;
    if (rv !== undefined && rv !== '' && rv !== old.metadata.resourceVersion) throw conflict(def, name);
    if (input.metadata.name !== name) {
      throw badRequest(`the name of the object (${String(input.metadata.name)}) does not match the name on the URL (${name})`);
    }
    if (def.namespaced && input.metadata.namespace !== undefined && input.metadata.namespace !== namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    return yield* this.updating(table, old, input, { ...opts, name, namespace });
  }

  private *updating(table: ResourceTable, old: KubeObject, given: KubeObject, opts: WriteOptions): WriteSteps<KubeObject> {
    const def = table.def;
    let input = given;
    if (def.schema !== undefined) note(opts, decodeWithSchema(def, def.schema, input, opts.fieldValidation ?? this.fieldValidation));
    const namespace = def.namespaced ? (old.metadata.namespace as string) : '';
    const point = {
      operation: 'UPDATE',
      table,
      namespace,
      name: old.metadata.name,
      subresource: opts.subresource,
      oldObject: old,
    } as const;
    if (opts.admission === true) {
      const mutated = yield { ...point, phase: 'mutating', object: input };
      if (mutated !== undefined && mutated !== input) {
        input = normaliseBody(def, mutated);
        if (def.schema !== undefined) decodeWithSchema(def, def.schema, input, 'Ignore');
      }
    }
    if (def.schema !== undefined) validateWithSchema(def, def.schema, input, old);
    const next = prepareUpdate(def, old, input, opts.subresource);
    validateOwnerReferences(def, next, 4);
    if (def.key === LEASES_KEY) validateLease(def, next);
    if (def.key === NAMESPACES_KEY && opts.subresource === undefined) {
      next.metadata.labels = { ...(next.metadata.labels ?? {}), 'kubernetes.io/metadata.name': next.metadata.name };
      next['spec'] = structuredClone(old['spec']);
    }
    if (def.key === SECRETS_KEY) foldStringData(next);
    if (def.key === VALIDATING_KEY) defaultWebhookConfiguration(next, 'validating');
    if (def.key === MUTATING_KEY) defaultWebhookConfiguration(next, 'mutating');
    let crdDef: ResourceDefinition | undefined;
    if (def.key === CRD_KEY) {
      crdDef = crdToDefinition(next);
      next['status'] = crdStatus(next, crdDef, nowTimestamp());
    }
    const key = objectKey(namespace, old.metadata.name);
    if (opts.admission === true) {
      yield { ...point, phase: 'validating', object: next };
      if (this.tables.get(def.key) !== table || table.get(key) !== old) throw new StaleWrite(def, old.metadata.name);
    }
    const managed = opts.managedFields;
    if (!changed(old, next) && (managed === undefined || !ownershipChanged(old.metadata.managedFields, managed))) return old;
    const stored = this.stamp(def, next, opts.manager ?? DIRECT_MANAGER, opts.subresource, old, managed);
    if (stored.metadata.deletionTimestamp !== undefined && (stored.metadata.finalizers ?? []).length === 0) {
      // The last finalizer is gone: the deletion completes with this write.
      this.commit(table, 'DELETED', key, stored, old);
      this.afterRemoval(table, stored);
      return stored;
    }
    this.commit(table, 'MODIFIED', key, stored, old);
    if (crdDef !== undefined) this.syncCrd(stored.metadata.name, crdDef);
    return stored;
  }

  /**
   * Server-side apply (PATCH with `application/apply-patch+yaml`): creates
   * the object when missing (`created: true`), else merges the applied
   * configuration and moves field ownership (see `serverSideApply`); then
   * the usual write rules (generation, status, finalizers, no-op writes).
   * A `metadata.resourceVersion` in the body is a precondition.
   */
  apply(
    table: ResourceTable,
    namespace: string,
    name: string,
    body: unknown,
    opts: ApplyOptions,
  ): { object: KubeObject; created: boolean } {
    return settle(this.applying(table, namespace, name, body, opts));
  }

  /** {@link apply} in steps (see {@link WriteSteps}). */
  *applying(
    table: ResourceTable,
    namespace: string,
    name: string,
    body: unknown,
    opts: ApplyOptions,
  ): WriteSteps<{ object: KubeObject; created: boolean }> {
    const def = table.def;
    const applied = checkApplied(def, body, name, namespace);
    const live = table.get(objectKey(def.namespaced ? namespace : '', name));
    // A resourceVersion in the body is a precondition on an existing object only (a missing one is created).
    const rv = (applied['metadata'] as Record<string, unknown> | undefined)?.['resourceVersion'];
    if (live !== undefined && typeof rv === 'string' && rv !== '' && rv !== live.metadata.resourceVersion) throw conflict(def, name);
    if (live === undefined && opts.subresource !== undefined) throw notFound(def, name);
    const skeleton: KubeObject = { apiVersion: def.apiVersion, kind: def.kind, metadata: def.namespaced ? { name, namespace } : { name } };
    const scope = opts.subresource === 'status' ? 'status' : def.hasStatusSubresource ? 'notStatus' : 'all';
    const { object, managedFields } = serverSideApply({
      live,
      applied,
      manager: opts.manager,
      force: opts.force ?? false,
      scope,
      subresource: opts.subresource,
      builtin: def.builtin,
      skeleton,
      time: nowTimestamp(),
    });
    delete object.metadata.resourceVersion;
    const write: WriteOptions = { manager: opts.manager, namespace, name, managedFields };
    if (opts.fieldValidation !== undefined) write.fieldValidation = opts.fieldValidation;
    if (opts.warnings !== undefined) write.warnings = opts.warnings;
    if (opts.admission !== undefined) write.admission = opts.admission;
    if (live === undefined) return { object: yield* this.creating(table, object, write), created: true };
    if (opts.subresource !== undefined) write.subresource = opts.subresource;
    object.metadata.resourceVersion = live.metadata.resourceVersion as string;
    return { object: yield* this.updating(table, live, object, write), created: false };
  }

  /**
   * DELETE semantics. With finalizers the object only gets a
   * deletionTimestamp (`removed: false`); otherwise it is removed and
   * returned stamped with the deletion's resourceVersion.
   */
  delete(table: ResourceTable, namespace: string, name: string, pre: DeletePreconditions = {}): { object: KubeObject; removed: boolean } {
    return settle(this.deleting(table, namespace, name, pre));
  }

  /** {@link delete} in steps (see {@link WriteSteps}); `admission` as in {@link WriteOptions}. */
  *deleting(
    table: ResourceTable,
    namespace: string,
    name: string,
    pre: DeletePreconditions = {},
    opts: { admission?: boolean } = {},
  ): WriteSteps<{ object: KubeObject; removed: boolean }> {
    const def = table.def;
    const key = objectKey(def.namespaced ? namespace : '', name);
    const old = table.get(key);
    if (old === undefined) throw notFound(def, name);
    if (pre.uid !== undefined && pre.uid !== old.metadata.uid) {
      throw conflict(def, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${String(old.metadata.uid)}`);
    }
    if (pre.resourceVersion !== undefined && pre.resourceVersion !== old.metadata.resourceVersion) {
      throw conflict(
        def,
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${String(old.metadata.resourceVersion)}`,
      );
    }
    if (opts.admission === true) {
      const point = {
        operation: 'DELETE',
        table,
        namespace: def.namespaced ? namespace : '',
        name,
        subresource: undefined,
        object: undefined,
        oldObject: old,
      } as const;
      yield { ...point, phase: 'mutating' };
      yield { ...point, phase: 'validating' };
      if (this.tables.get(def.key) !== table || table.get(key) !== old) throw new StaleWrite(def, name);
    }
    if ((old.metadata.finalizers ?? []).length > 0) {
      if (old.metadata.deletionTimestamp !== undefined) return { object: old, removed: false };
      const next = structuredClone(old);
      next.metadata.deletionTimestamp = nowTimestamp();
      next.metadata.deletionGracePeriodSeconds = 0;
      if (def.tracksGeneration && next.metadata.generation !== undefined) next.metadata.generation += 1;
      next.metadata.resourceVersion = String(++this.rv);
      this.commit(table, 'MODIFIED', key, next, old);
      return { object: next, removed: false };
    }
    const gone: KubeObject = { ...old, metadata: { ...old.metadata, resourceVersion: String(++this.rv) } };
    this.commit(table, 'DELETED', key, gone, old);
    this.afterRemoval(table, gone);
    return { object: gone, removed: true };
  }

  private afterRemoval(table: ResourceTable, obj: KubeObject): void {
    if (table.def.key === CRD_KEY) {
      const registered = this.crdResources.get(obj.metadata.name);
      this.crdResources.delete(obj.metadata.name);
      const t = registered === undefined ? undefined : this.tables.get(registered);
      if (t !== undefined) this.unregister(t.def);
    } else if (table.def.key === NAMESPACES_KEY) {
      // No namespace controller runs: the contents go at once, each with its own DELETED event.
      for (const t of this.tables.values()) {
        if (!t.def.namespaced) continue;
        const [lo, hi] = t.namespaceRange(obj.metadata.name);
        const keys = t.sortedKeys().slice(lo, hi);
        for (const k of keys) {
          const o = t.get(k) as KubeObject;
          this.delete(t, obj.metadata.name, o.metadata.name);
        }
      }
    }
  }

  private syncCrd(crdName: string, def: ResourceDefinition): void {
    const key = gvrKey(def);
    const previous = this.crdResources.get(crdName);
    if (previous !== undefined && previous !== key) {
      const t = this.tables.get(previous);
      if (t !== undefined) this.unregister(t.def);
    }
    this.crdResources.set(crdName, key);
    this.register(def);
  }
}

/**
 * Checks an applied configuration the way the real server does before
 * applying it: a JSON object naming this resource's apiVersion and kind,
 * and (when it names them) the object and namespace of the URL.
 */
function checkApplied(def: ServedResource, body: unknown, name: string, namespace: string): Record<string, unknown> {
  if (!isJsonObject(body)) throw badRequest('the body of an apply patch must be a JSON object');
  const apiVersion = typeof body['apiVersion'] === 'string' ? body['apiVersion'] : '';
  const kind = typeof body['kind'] === 'string' ? body['kind'] : '';
  if (apiVersion !== def.apiVersion || kind !== def.kind) {
    const gv = apiVersion.includes('/') ? apiVersion : `/${apiVersion}`;
    throw badRequest(`invalid object type: ${gv}, Kind=${kind}`);
  }
  const meta = isJsonObject(body['metadata']) ? body['metadata'] : {};
  if (meta['name'] !== undefined && meta['name'] !== name) {
    throw badRequest(`the name of the object (${String(meta['name'])}) does not match the name on the URL (${name})`);
  }
  if (def.namespaced && meta['namespace'] !== undefined && meta['namespace'] !== '' && meta['namespace'] !== namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  return body;
}

// The real server names the plural resource here (`widgets.example.com`), not the Kind as for other 422s.
function invalidRv(def: ServedResource, name: string): Error {
  return invalid(def.group, def.resource, name, [
    { field: 'metadata.resourceVersion', reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be specified for an update' },
  ]);
}

/** Hands a write's warnings to whoever asked for them (the HTTP path's `Warning` header). */
function note(opts: WriteOptions, warnings: readonly string[]): void {
  if (warnings.length > 0) opts.warnings?.push(...warnings);
}
