// The code of docs/guide/first-controller.md. It is compiled by `tsc -b` and
// run by greetingController.test.ts, so the guide cannot drift from the API.
import 'reflect-metadata';
import { CoreV1Api, CustomObjectsApi, type KubeConfig, type V1OwnerReference } from '@kubernetes/client-node';
import { coordinatorModule } from '@protean/coordinator';
import { coreModule, DynamicController, isNotFound, type GroupVersionResource, type Handler, type Logger } from '@protean/core';
import { queueModule } from '@protean/queue';
import { watchManagerModule } from '@protean/watch-manager';
import { Container } from 'inversify';

// #region compose
/** Builds a DynamicController for a cluster, the way every Protean app does. */
export function composeController(kubeConfig: KubeConfig, logger: Logger): DynamicController {
  const container = new Container();
  container.load(coreModule({ workers: 2 }, logger), queueModule(), watchManagerModule({ kubeConfig }), coordinatorModule());
  return container.get(DynamicController);
}
// #endregion compose

// #region handler
export const greetings: GroupVersionResource = { group: 'guide.protean.dev', version: 'v1', resource: 'greetings' };
const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };

interface Greeting {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; uid: string };
  spec?: { text?: string };
}

/**
 * Marks `greeting` as the controller of a child, so deleting the Greeting
 * lets the cluster's garbage collector delete the child too.
 */
function ownedBy(greeting: Greeting): V1OwnerReference[] {
  const { apiVersion, kind, metadata } = greeting;
  return [{ apiVersion, kind, name: metadata.name, uid: metadata.uid, controller: true, blockOwnerDeletion: true }];
}

/** Keeps a ConfigMap `<name>-greeting` holding each Greeting's text. */
export function greetingHandler(kubeConfig: KubeConfig): Handler {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  return async ({ namespace, name }, ctx) => {
    let greeting: Greeting;
    try {
      greeting = (await custom.getNamespacedCustomObject({
        group: greetings.group,
        version: greetings.version,
        plural: greetings.resource,
        namespace,
        name,
      })) as Greeting;
    } catch (err) {
      if (isNotFound(err)) return; // deleted: declaring nothing, this pass drops the instance's watches
      throw err;
    }
    // Watch first, then touch: a change made between the two is never missed.
    const child = `${name}-greeting`;
    await ctx.watcher.watch({ nodeId: 'greeting-configmap', gvr: configmaps, namespace, name: child });
    const data = { text: greeting.spec?.text ?? 'hello' };
    try {
      const current = await core.readNamespacedConfigMap({ namespace, name: child });
      if (current.data?.['text'] !== data.text) {
        await core.replaceNamespacedConfigMap({ namespace, name: child, body: { ...current, data } });
      }
    } catch (err) {
      if (!isNotFound(err)) throw err; // retried with backoff; the previous watch set stays
      const metadata = { name: child, namespace, ownerReferences: ownedBy(greeting) };
      await core.createNamespacedConfigMap({ namespace, body: { metadata, data } });
    }
    // Resolving commits this pass's watches: anything not declared again is dropped.
  };
}
// #endregion handler
