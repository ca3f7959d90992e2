import type { KubeConfig } from '@kubernetes/client-node';
import { kubeRequest, waitUntil, type Json } from '@protean/envtest';

/** The metadata-only Accept header for LIST. */
export const ACCEPT_META_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
/** The metadata-only Accept header for GET and WATCH. */
export const ACCEPT_META = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

/** The API group of the fixture CRDs. */
export const GROUP = 'conformance.protean.dev';

function crd(plural: string, kind: string, statusSubresource: boolean): Json {
  const version: Json = {
    name: 'v1',
    served: true,
    storage: true,
    schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
  };
  if (statusSubresource) version['subresources'] = { status: {} };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [version],
    },
  };
}

/** A namespaced CRD with a status subresource. */
export const WIDGET_CRD = crd('widgets', 'Widget', true);
/** A namespaced CRD without a status subresource. */
export const THING_CRD = crd('things', 'Thing', false);
/** A CRD the tests create and delete at runtime. */
export const GADGET_CRD = crd('gadgets', 'Gadget', true);

/** Collection path of a fixture custom resource in `ns`. */
export function crPath(plural: string, ns: string, name?: string): string {
  return `/apis/${GROUP}/v1/namespaces/${ns}/${plural}${name === undefined ? '' : `/${name}`}`;
}

/** Collection path of ConfigMaps in `ns`. */
export function cmPath(ns: string, name?: string): string {
  return `/api/v1/namespaces/${ns}/configmaps${name === undefined ? '' : `/${name}`}`;
}

/** Creates a CRD and waits until its resource answers a LIST (a real server needs a moment). */
export async function createCrd(kc: KubeConfig, def: Json): Promise<void> {
  const created = await kubeRequest(kc, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: def });
  if (created.status !== 201) throw new Error(`creating CRD answered ${created.status}: ${created.text}`);
  const plural = ((def['spec'] as Json)['names'] as Json)['plural'] as string;
  await waitUntil(
    async () => (await kubeRequest(kc, 'GET', `/apis/${GROUP}/v1/${plural}`)).status === 200,
    `${plural} to be served`,
    30_000,
  );
}

/** `obj.metadata` (tests read it a lot). */
export function metaOf(obj: Json): Json {
  return (obj['metadata'] ?? {}) as Json;
}

/** `obj.metadata.resourceVersion` as a number, asserting it is a decimal string first. */
export function rvOf(obj: Json): number {
  const rv = metaOf(obj)['resourceVersion'];
  if (typeof rv !== 'string' || !/^[0-9]+$/.test(rv)) throw new Error(`resourceVersion ${JSON.stringify(rv)} is not a decimal string`);
  return Number(rv);
}

/** Names of a list response's items. */
export function namesOf(list: Json): string[] {
  return ((list['items'] ?? []) as Json[]).map((i) => metaOf(i)['name'] as string);
}
