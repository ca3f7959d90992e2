import { ApiextensionsV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { gvrKey } from '@protean/core';
import { CrdError } from './CrdError.js';
import { crdManifest, type ParentKind } from './kinds.js';
import { pollUntil } from './pollUntil.js';
import { requestOptions } from './requestOptions.js';

/** Options of {@link ensureCrd}. */
export interface EnsureCrdOptions {
  /** How long to wait for the API server to serve the new kind. Default 30 000. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** What {@link ensureCrd} did. */
export type CrdOutcome = 'created' | 'existed';

/**
 * Defines `kind` in the cluster by creating its CustomResourceDefinition
 * (an existing one is left as it is) and resolves once the API server
 * serves the kind: the CRD is `Established` and a LIST of the resource
 * answers. Registering the kind with the controller before that fails,
 * because its informer cannot list a resource that is not served yet.
 */
export async function ensureCrd(kubeConfig: KubeConfig, kind: ParentKind, options: EnsureCrdOptions = {}): Promise<CrdOutcome> {
  const signal = options.signal ?? new AbortController().signal;
  const crds = kubeConfig.makeApiClient(ApiextensionsV1Api);
  const objects = kubeConfig.makeApiClient(CustomObjectsApi);
  const body = crdManifest(kind);
  const name = body.metadata?.name ?? '';
  let outcome: CrdOutcome = 'created';
  try {
    await crds.createCustomResourceDefinition({ body }, requestOptions(signal));
  } catch (err) {
    if (statusCode(err) !== 409) throw new CrdError(name, 'create', err);
    outcome = 'existed';
  }
  const { group, version, resource: plural } = kind.gvr;
  await pollUntil(
    `CRD ${name} serves ${gvrKey(kind.gvr)}`,
    async () => {
      const crd = await crds.readCustomResourceDefinition({ name }, requestOptions(signal));
      const established = crd.status?.conditions?.find((c) => c.type === 'Established');
      if (established?.status !== 'True') return `Established=${established?.status ?? 'absent'}`;
      await objects.listClusterCustomObject({ group, version, plural, limit: 1 }, requestOptions(signal));
      return true;
    },
    { timeoutMs: options.timeoutMs ?? 30_000, intervalMs: 100, signal },
  );
  return outcome;
}

function statusCode(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}
