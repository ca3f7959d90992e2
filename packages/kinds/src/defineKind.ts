import type { GroupVersionResource } from '@protean/core';
import type { Static, TSchema } from 'typebox';
import { KindSchemaError } from './KindSchemaError.js';
import { toStructural, type JsonSchemaProps } from './structuralSchema.js';

/** A column `kubectl get` prints for the kind. */
export interface PrinterColumn {
  readonly name: string;
  readonly type: 'integer' | 'number' | 'string' | 'boolean' | 'date';
  /** A JSONPath into the object, e.g. `.status.phase`. */
  readonly jsonPath: string;
  readonly description?: string;
  readonly format?: string;
  /** 0 is shown by default; higher only with `-o wide`. */
  readonly priority?: number;
}

/** A CEL rule of a CRD (`x-kubernetes-validations`), checked by the API server on every write. */
export interface ValidationRule {
  /** E.g. `self.replicas <= 10`, or a transition rule `self.size >= oldSelf.size`. */
  readonly rule: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  readonly fieldPath?: string;
  /** Run the transition rule also when the old object did not have the value. */
  readonly optionalOldSelf?: boolean;
}

/** One version of a kind: its spec and status schemas (TypeBox), columns and rules. */
export interface KindVersion<Spec extends TSchema = TSchema, Status extends TSchema | undefined = TSchema | undefined> {
  /** E.g. `v1`, `v1alpha2`. */
  readonly name: string;
  readonly spec: Spec;
  /** The status schema; with one, the CRD has the status subresource. */
  readonly status?: Status;
  /** Default true. */
  readonly served?: boolean;
  /** The version objects are stored as; default: the last version listed. Exactly one may say so. */
  readonly storage?: boolean;
  readonly deprecated?: boolean;
  readonly deprecationWarning?: string;
  readonly printerColumns?: readonly PrinterColumn[];
  /** CEL rules on the whole object (`self.spec`, `self.status`). Field rules go on the field's schema. */
  readonly validations?: readonly ValidationRule[];
}

/** Options of {@link defineKind}. */
export interface KindOptions<Versions extends readonly KindVersion[]> {
  /** The API group, e.g. `demo.protean.dev`. */
  readonly group: string;
  /** The kind, UpperCamelCase, e.g. `WebApp`. */
  readonly kind: string;
  /** Default: the kind in lower case with an `s` (`es` after s, x, z, ch, sh; `ies` after a consonant and y). */
  readonly plural?: string;
  /** Default: the kind in lower case. */
  readonly singular?: string;
  /** Default `Namespaced`. */
  readonly scope?: 'Namespaced' | 'Cluster';
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  /** Oldest first; the types of {@link KindObject} come from the last one. */
  readonly versions: Versions;
}

/** The CRD object of a kind (apiextensions.k8s.io/v1), as {@link KindDeclaration.crd} builds it. */
export interface CustomResourceDefinition {
  readonly apiVersion: 'apiextensions.k8s.io/v1';
  readonly kind: 'CustomResourceDefinition';
  readonly metadata: { readonly name: string; readonly labels?: Readonly<Record<string, string>> };
  readonly spec: JsonSchemaProps;
}

/** A kind declared once: its names, its GVRs, its CRD; its object type is {@link KindObject}. */
export interface KindDeclaration<Versions extends readonly KindVersion[] = readonly KindVersion[]> {
  readonly group: string;
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly scope: 'Namespaced' | 'Cluster';
  readonly versions: Versions;
  /** The version objects are stored as. */
  readonly storageVersion: string;
  /** `<plural>.<group>`, the CRD's name. */
  readonly crdName: string;
  /** The GVR of `version` (default: the storage version). */
  gvr(version?: string): GroupVersionResource;
  /** The CRD object: structural schema per version, status subresource where a status schema is given. */
  crd(): CustomResourceDefinition;
  /** `apiVersion` and `kind` of an object of `version` (default: the storage version). */
  typeMeta(version?: string): { readonly apiVersion: string; readonly kind: string };
}

type Last<T extends readonly unknown[]> = T extends readonly [...unknown[], infer L] ? L : T[number];
type VersionOf<K extends KindDeclaration, Name extends string | undefined> = Name extends string
  ? Extract<K['versions'][number], { readonly name: Name }>
  : Last<K['versions']>;

/**
 * The TypeScript type of an object of a declared kind: `apiVersion`,
 * `kind`, `metadata`, `spec` and `status` from the schemas of the version
 * listed last (or of `Version`).
 */
export type KindObject<K extends KindDeclaration, Version extends string | undefined = undefined> =
  VersionOf<K, Version> extends KindVersion<infer Spec, infer Status>
    ? {
        apiVersion: string;
        kind: string;
        metadata: KindObjectMeta;
        spec: Static<Spec>;
      } & (Status extends TSchema ? { status?: Static<Status> } : unknown)
    : never;

/** The metadata of a kind's object (what a handler reads and writes). */
export interface KindObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }[];
  deletionTimestamp?: string;
  creationTimestamp?: string;
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const KIND = /^[A-Z][A-Za-z0-9]*$/;
const VERSION = /^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/;

/**
 * Declares a kind once, in TypeScript: its schemas are TypeBox schemas,
 * from which come the object type ({@link KindObject}), the CRD
 * (`crd()`, written to `deploy/` by the `protean-crd` CLI, installed at run
 * time by `ensureKind`) and the GVRs. Checked here: names, versions, and
 * that every schema can be a structural one (a {@link KindSchemaError}
 * names the path that cannot).
 */
export function defineKind<const Versions extends readonly KindVersion[]>(options: KindOptions<Versions>): KindDeclaration<Versions> {
  const { group, kind } = options ?? ({} as KindOptions<Versions>);
  const where = String(kind);
  if (typeof group !== 'string' || !group.includes('.') || !DNS_SUBDOMAIN.test(group)) {
    throw new KindSchemaError(where, `group must be a DNS subdomain with a dot (e.g. demo.example.com), got ${JSON.stringify(group)}`);
  }
  if (typeof kind !== 'string' || !KIND.test(kind))
    throw new KindSchemaError(where, `kind must be UpperCamelCase, got ${JSON.stringify(kind)}`);
  const plural = options.plural ?? pluralOf(kind.toLowerCase());
  const singular = options.singular ?? kind.toLowerCase();
  for (const [field, value] of [
    ['plural', plural],
    ['singular', singular],
  ] as const) {
    if (!DNS_LABEL.test(value)) throw new KindSchemaError(where, `${field} must be a lower-case DNS label, got ${JSON.stringify(value)}`);
  }
  const versions = options.versions;
  if (!Array.isArray(versions) || versions.length === 0) throw new KindSchemaError(where, 'needs at least one version');
  const names = new Set<string>();
  for (const v of versions) {
    if (typeof v?.name !== 'string' || !VERSION.test(v.name))
      throw new KindSchemaError(where, `version names look like v1, v2beta1; got ${JSON.stringify(v?.name)}`);
    if (names.has(v.name)) throw new KindSchemaError(where, `version ${v.name} is listed twice`);
    names.add(v.name);
  }
  const storages = versions.filter((v) => v.storage === true);
  if (storages.length > 1)
    throw new KindSchemaError(where, `only one version may be the storage version, got ${storages.map((v) => v.name).join(', ')}`);
  const storageVersion = (storages[0] ?? versions[versions.length - 1]!).name;
  const scope = options.scope ?? 'Namespaced';
  const crdName = `${plural}.${group}`;
  // Converted once, here: a declaration that cannot be a CRD fails where it is written.
  const schemas = versions.map((v) => ({ version: v, schema: versionSchema(kind, v) }));
  const crd: CustomResourceDefinition = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: crdName },
    spec: {
      group,
      scope,
      names: {
        plural,
        singular,
        kind,
        listKind: `${kind}List`,
        ...(options.shortNames === undefined ? {} : { shortNames: [...options.shortNames] }),
        ...(options.categories === undefined ? {} : { categories: [...options.categories] }),
      },
      versions: schemas.map(({ version: v, schema }) => ({
        name: v.name,
        served: v.served ?? true,
        storage: v.name === storageVersion,
        ...(v.deprecated === undefined ? {} : { deprecated: v.deprecated }),
        ...(v.deprecationWarning === undefined ? {} : { deprecationWarning: v.deprecationWarning }),
        schema: { openAPIV3Schema: schema },
        ...(v.status === undefined ? {} : { subresources: { status: {} } }),
        ...(v.printerColumns === undefined ? {} : { additionalPrinterColumns: v.printerColumns.map((c) => ({ ...c })) }),
      })),
    },
  };
  const frozen = deepFreeze(crd);
  return Object.freeze({
    group,
    kind,
    plural,
    singular,
    scope,
    versions,
    storageVersion,
    crdName,
    gvr: (version = storageVersion) => {
      if (!names.has(version)) throw new KindSchemaError(where, `has no version ${version} (it has ${[...names].join(', ')})`);
      return Object.freeze({ group, version, resource: plural });
    },
    crd: () => structuredClone(frozen) as CustomResourceDefinition,
    typeMeta: (version = storageVersion) => ({ apiVersion: `${group}/${version}`, kind }),
  });
}

function versionSchema(kind: string, v: KindVersion): JsonSchemaProps {
  const where = `${kind} ${v.name} `;
  const properties: Record<string, JsonSchemaProps> = { spec: toStructural(v.spec, `${where}.spec`) };
  if (v.status !== undefined) properties['status'] = toStructural(v.status, `${where}.status`);
  return {
    type: 'object',
    properties,
    ...(v.validations === undefined || v.validations.length === 0
      ? {}
      : { 'x-kubernetes-validations': v.validations.map((r) => ({ ...r })) }),
  };
}

/** The usual English plural of a lower-case kind (what kubebuilder's default gives for regular nouns). */
export function pluralOf(word: string): string {
  if (/(s|x|z|ch|sh)$/.test(word)) return `${word}es`;
  if (/[^aeiou]y$/.test(word)) return `${word.slice(0, -1)}ies`;
  return `${word}s`;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
