// The objects and the controller of the end-to-end benchmark (e2e.mjs).
import 'reflect-metadata';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { coordinatorModule } from '@protean/coordinator';
import { coreModule, DynamicController, silentLogger } from '@protean/core';
import { queueModule } from '@protean/queue';
import { watchManagerModule } from '@protean/watch-manager';
import { Container } from 'inversify';
import { createAll } from './cluster.mjs';

export const NAMESPACE = 'default';
/** Scalar ConfigMap watches per latency instance: instance j watches cm-<10j>..cm-<10j+9>. */
export const WATCHES_PER_INSTANCE = 10;
/** client-node requests in flight while creating objects. */
export const CREATE_CONCURRENCY = 24;

export const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };
export const LATENCY_PARENT = { group: 'bench.protean.dev', version: 'v1', resource: 'latencyparents' };
export const REGISTER_PARENT = { group: 'bench.protean.dev', version: 'v1', resource: 'registerparents' };
export const cmName = (i) => `cm-${i}`;

export function configMap(i, seq) {
  return {
    metadata: { name: cmName(i), namespace: NAMESPACE, labels: { app: 'bench', shard: String(i % 16) } },
    data: { seq: String(seq) },
  };
}

/**
 * Builds a DynamicController the way an application does (one container with
 * the core, queue, watch-manager and coordinator modules) and starts it;
 * `stop()` shuts it down and waits for that.
 */
export function startComposedController(kubeConfig, config) {
  const container = new Container();
  container.load(coreModule(config, silentLogger()), queueModule(), watchManagerModule({ kubeConfig }), coordinatorModule());
  const controller = container.get(DynamicController);
  const abort = new AbortController();
  const running = controller.start(abort.signal);
  return {
    controller,
    stop: async () => {
      abort.abort();
      await running;
    },
  };
}

/**
 * Creates ConfigMaps and both kinds of parents so the cluster holds `to`'s
 * counts, given it holds `from`'s; returns { objects, ms }.
 */
export async function populate(kc, from, to) {
  const core = kc.makeApiClient(CoreV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const started = performance.now();
  await createAll(from.configMaps, to.configMaps, CREATE_CONCURRENCY, (i) =>
    core.createNamespacedConfigMap({ namespace: NAMESPACE, body: configMap(i, 0) }),
  );
  const parentBody = (gvr, kind, i) => ({
    apiVersion: `${gvr.group}/${gvr.version}`,
    kind,
    metadata: { name: `p-${i}`, namespace: NAMESPACE },
    spec: { index: i },
  });
  const createParent = (gvr, kind) => (i) =>
    custom.createNamespacedCustomObject({
      group: gvr.group,
      version: gvr.version,
      namespace: NAMESPACE,
      plural: gvr.resource,
      body: parentBody(gvr, kind, i),
    });
  await createAll(from.latencyInstances, to.latencyInstances, CREATE_CONCURRENCY, createParent(LATENCY_PARENT, 'LatencyParent'));
  await createAll(from.registerInstances, to.registerInstances, CREATE_CONCURRENCY, createParent(REGISTER_PARENT, 'RegisterParent'));
  const objects =
    to.configMaps - from.configMaps + (to.latencyInstances - from.latencyInstances) + (to.registerInstances - from.registerInstances);
  return { objects, ms: performance.now() - started };
}
