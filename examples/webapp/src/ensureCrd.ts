import { isAlreadyExists, KubeClient, type KubeObject } from '@protean/client';
import { gvrKey, type GroupVersionResource } from '@protean/core';
import { sharedConnectionPool, type KubeConfigLike } from '@protean/transport';
import { CrdError } from './CrdError.js';
import { crdManifest, type ParentKind } from './kinds.js';
import { pollUntil } from './pollUntil.js';

/** Options of {@link ensureCrd}. */
export interface EnsureCrdOptions {
  /** How long to wait for the API server to serve the new kind. Default 30 000. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** What {@link ensureCrd} did. */
export type CrdOutcome = 'created' | 'existed';

const CRDS: GroupVersionResource = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };

interface CrdObject extends KubeObject {
  status?: { conditions?: { type: string; status: string }[] };
}

/**
 * Defines `kind` in the cluster by creating its CustomResourceDefinition
 * (an existing one is left as it is) and resolves once the API server
 * serves the kind: the CRD is `Established` and a LIST of the resource
 * answers. Registering the kind with the controller before that fails,
 * because its informer cannot list a resource that is not served yet.
 * Sent through `@protean/client` on the KubeConfig's shared connection
 * (either KubeConfig), so it loads none of client-node's generated API.
 */
export async function ensureCrd(kubeConfig: KubeConfigLike, kind: ParentKind, options: EnsureCrdOptions = {}): Promise<CrdOutcome> {
  const signal = options.signal ?? new AbortController().signal;
  const client = new KubeClient({ kubeConfig });
  // The manifest is plain JSON; client-node types its timestamps as Date, which it never sets here.
  const body = crdManifest(kind) as unknown as KubeObject;
  const name = body.metadata?.name ?? '';
  let outcome: CrdOutcome = 'created';
  try {
    await client.create(CRDS, body, { signal });
  } catch (err) {
    if (!isAlreadyExists(err)) throw new CrdError(name, 'create', err);
    outcome = 'existed';
  }
  const { group, version, resource } = kind.gvr;
  await pollUntil(
    `CRD ${name} serves ${gvrKey(kind.gvr)}`,
    async () => {
      const crd = await client.get<CrdObject>(CRDS, { name }, { signal });
      const established = crd.status?.conditions?.find((c) => c.type === 'Established');
      if (established?.status !== 'True') return `Established=${established?.status ?? 'absent'}`;
      // One object is enough to know the kind is served (KubeClient.list would read every page).
      const res = await sharedConnectionPool(kubeConfig).send({
        method: 'GET',
        path: `/apis/${group}/${version}/${resource}?limit=1`,
        headers: { accept: 'application/json' },
        signal,
      });
      return res.status === 200 ? true : `LIST ${res.status}`;
    },
    { timeoutMs: options.timeoutMs ?? 30_000, intervalMs: 100, signal },
  );
  return outcome;
}
