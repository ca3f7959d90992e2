import { ApiextensionsV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { isNotFound } from '@protean/core';
import { waitFor } from '@protean/core/testing';
import { crdManifest, crdName, type E2eKind } from './kinds.js';

/** How long a real API server gets to establish or remove a CRD. */
const CRD_TIMEOUT_MS = 30_000;

/**
 * Creates the CRD of `kind` and resolves once the API server serves the
 * kind: `Established` is `True` and a LIST of the resource answers.
 *
 * Easy to get wrong: `Established` alone is not enough, the resource may
 * still 404 for a moment afterwards.
 */
export async function defineCrd(kubeConfig: KubeConfig, kind: E2eKind): Promise<void> {
  const crds = kubeConfig.makeApiClient(ApiextensionsV1Api);
  const objects = kubeConfig.makeApiClient(CustomObjectsApi);
  const name = crdName(kind);
  await crds.createCustomResourceDefinition({ body: crdManifest(kind) });
  const { group, version, resource: plural } = kind.gvr;
  await waitFor(
    async () => {
      const crd = await crds.readCustomResourceDefinition({ name });
      if (crd.status?.conditions?.find((c) => c.type === 'Established')?.status !== 'True') return false;
      await objects.listClusterCustomObject({ group, version, plural, limit: 1 });
      return true;
    },
    { timeoutMs: CRD_TIMEOUT_MS, intervalMs: 50, message: `CRD ${name} to be established and served` },
  );
}

/**
 * Deletes the CRD of `kind` and resolves once it is gone. The API server
 * deletes every instance first (the CRD's cleanup finalizer runs inside
 * kube-apiserver, no controller-manager needed).
 */
export async function deleteCrd(kubeConfig: KubeConfig, kind: E2eKind): Promise<void> {
  const crds = kubeConfig.makeApiClient(ApiextensionsV1Api);
  const name = crdName(kind);
  await crds.deleteCustomResourceDefinition({ name });
  await waitFor(
    async () => {
      try {
        await crds.readCustomResourceDefinition({ name });
        return false;
      } catch (err) {
        if (isNotFound(err)) return true;
        throw err;
      }
    },
    { timeoutMs: CRD_TIMEOUT_MS, intervalMs: 50, message: `CRD ${name} to be deleted` },
  );
}
