import { ApiextensionsV1Api, type KubeConfig } from '@kubernetes/client-node';
import { applyOwned, KubeClient } from '@protean/client';
import { gvrKey, isNotFound, TOKENS, type Handler, type Logger, type NamespacedName } from '@protean/core';
import { LogRecorder, ObserverRecorder, waitFor } from '@protean/core/testing';
import type { KubernetesInformerSourceOptions } from '@protean/watch-manager';
import { E2eCluster } from '../e2e/E2eCluster.js';
import { crdManifest, crdName, type E2eKind } from '../e2e/kinds.js';
import { startRealController, type RealController } from '../e2e/startRealController.js';

/*
 * A cluster whose kinds come and go under a running controller, the same on kube-apiserver and on the in-memory API
 * server: a parent kind whose handler applies one child of another kind per instance (`applyOwned`, the documented
 * path), the child kind's CRD installed after the instances, deleted, and installed again with another schema.
 */

/** How often the scenario polls the API server for the moments it measures. */
export const POLL_MS = 20;

/** Where the scenario runs: an API server, its admin credentials, and those the controller's informers run as. */
export interface KindChangeTarget {
  readonly admin: KubeConfig;
  /** Default: `admin`. */
  readonly controller?: KubeConfig;
}

/** A started scenario: the controller, what it logged, each pass's outcome, and the helpers the tests measure with. */
export interface KindChangeRun {
  readonly rc: RealController;
  readonly cluster: E2eCluster;
  readonly observer: ObserverRecorder;
  readonly logs: LogRecorder;
  readonly parent: E2eKind;
  readonly child: E2eKind;
  stop(): Promise<void>;
}

/**
 * Starts a controller of `parent` whose handler applies a `child` named
 * after each instance, in its namespace, owned by it.
 */
export async function startKindChangeRun(
  target: KindChangeTarget,
  parent: E2eKind,
  child: E2eKind,
  options: {
    readonly namespace?: string;
    readonly informer?: Partial<Omit<KubernetesInformerSourceOptions, 'kubeConfig'>>;
    readonly logger?: Logger;
  } = {},
): Promise<KindChangeRun> {
  const cluster = new E2eCluster(target.admin, options.namespace ?? 'kinds');
  await cluster.createNamespace();
  const observer = new ObserverRecorder();
  const logs = new LogRecorder('info');
  const rc = startRealController({
    kubeConfig: target.controller ?? target.admin,
    logger: options.logger ?? logs.logger,
    ...(options.informer === undefined ? {} : { informer: options.informer }),
    configure: (container) => {
      container.rebind(TOKENS.controllerObserver).toConstantValue(observer);
    },
  });
  const client = new KubeClient({ kubeConfig: target.admin, fieldManager: 'kind-change-test' });
  const handler: Handler = async (req, ctx) => {
    const owner = await client.get(parent.gvr, req, { signal: ctx.signal });
    const { group, version } = child.gvr;
    await applyOwned(
      client,
      ctx.watcher,
      child.gvr,
      owner,
      { apiVersion: `${group}/${version}`, kind: child.kind, metadata: { name: req.name, namespace: req.namespace }, spec: {} },
      { nodeId: 'child', signal: ctx.signal, force: true },
    );
  };
  await rc.controller.register(parent.gvr, handler);
  return {
    rc,
    cluster,
    observer,
    logs,
    parent,
    child,
    async stop() {
      await rc.stop();
      client.close();
    },
  };
}

/** Creates the CRD of `kind` (with `specFields` as its schema) and resolves with the moment it was first seen Established. */
export async function installCrd(admin: KubeConfig, kind: E2eKind): Promise<number> {
  const crds = admin.makeApiClient(ApiextensionsV1Api);
  await crds.createCustomResourceDefinition({ body: crdManifest(kind) });
  let established = 0;
  await waitFor(
    async () => {
      const crd = await crds.readCustomResourceDefinition({ name: crdName(kind) });
      if (crd.status?.conditions?.find((c) => c.type === 'Established')?.status !== 'True') return false;
      established = Date.now();
      return true;
    },
    { timeoutMs: 30_000, intervalMs: POLL_MS, message: `CRD ${crdName(kind)} to be Established` },
  );
  return established;
}

/** Deletes the CRD of `kind` and resolves once it is gone (with its objects). */
export async function removeCrd(admin: KubeConfig, kind: E2eKind): Promise<void> {
  const crds = admin.makeApiClient(ApiextensionsV1Api);
  await crds.deleteCustomResourceDefinition({ name: crdName(kind) });
  await waitFor(
    async () => {
      try {
        await crds.readCustomResourceDefinition({ name: crdName(kind) });
        return false;
      } catch (err) {
        if (isNotFound(err)) return true;
        throw err;
      }
    },
    { timeoutMs: 60_000, intervalMs: POLL_MS, message: `CRD ${crdName(kind)} to be deleted` },
  );
}

/**
 * Resolves with the moment every instance's child is in the controller's
 * informer cache (the child kind routes again) and exists on the server,
 * owned by its instance.
 */
export async function childrenConverged(run: KindChangeRun, instances: readonly NamespacedName[], timeoutMs: number): Promise<number> {
  const { rc, cluster, child } = run;
  const { group, version, resource: plural } = child.gvr;
  let at = 0;
  await waitFor(
    async () => {
      const informer = rc.controller.informer(child.gvr);
      if (informer === undefined || instances.some((i) => informer.get(i) === undefined)) return false;
      for (const i of instances) {
        const obj = (await cluster.objects
          .getNamespacedCustomObject({ group, version, plural, namespace: i.namespace, name: i.name })
          .catch(() => undefined)) as { metadata?: { ownerReferences?: Array<{ name: string }> } } | undefined;
        if (obj?.metadata?.ownerReferences?.[0]?.name !== i.name) return false;
      }
      at = Date.now();
      return true;
    },
    { timeoutMs, intervalMs: POLL_MS, message: `the ${gvrKey(child.gvr)} child of every instance` },
  );
  return at;
}
