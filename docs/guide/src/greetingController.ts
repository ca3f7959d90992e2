// The code of docs/guide/first-controller.md. It is compiled by `tsc -b` and
// run by greetingController.test.ts, so the guide cannot drift from the API.
import 'reflect-metadata';
import type { KubeConfig } from '@kubernetes/client-node';
import { applyOwned, EventRecorder, KubeClient, reconcileFinalizer, setStatusCondition, type Condition } from '@protean/client';
import { coordinatorModule } from '@protean/coordinator';
import { coreModule, DynamicController, type GroupVersionResource, type Handler, type Logger, type RegisterOptions } from '@protean/core';
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

/** The finalizer that gives the controller one last pass before a Greeting goes. */
export const GREETING_FINALIZER = 'guide.protean.dev/farewell';

/** Register the handler with these options: its Greetings are read from the object cache. */
export const greetingRegisterOptions: RegisterOptions = { cache: [greetings] };

interface Greeting {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; uid: string; generation?: number; deletionTimestamp?: string; finalizers?: string[] };
  spec?: { text?: string };
  status?: { conditions?: Condition[] };
}

/** Keeps a ConfigMap `<name>-greeting` holding each Greeting's text, a `Ready` condition and an Event on the Greeting. */
export function greetingHandler(kubeConfig: KubeConfig): Handler {
  // One client per controller: its writes are recorded in managedFields as `greeting-controller`.
  const client = new KubeClient({ kubeConfig, fieldManager: 'greeting-controller' });
  const events = new EventRecorder({ client, reportingController: 'guide.protean.dev/greeting-controller' });
  return async ({ namespace, name }, ctx) => {
    const { signal } = ctx; // aborts at shutdown and at the reconcile timeout: pass it to every request
    // From the object cache (registered with { cache: [greetings] }): no request to the API server.
    const greeting = await ctx.get<Greeting>(greetings, namespace, name);
    if (greeting === undefined) return; // deleted: declaring nothing, this pass drops the instance's watches
    // Being deleted: clean up (here, say goodbye), remove the finalizer, and stop. Otherwise make sure it carries it.
    const step = await reconcileFinalizer(client, greetings, greeting, {
      finalizer: GREETING_FINALIZER,
      cleanup: async (g) =>
        events.event(g, { type: 'Normal', reason: 'Farewell', action: 'Cleanup', note: `Greeting ${g.metadata.name} is going` }),
      signal,
    });
    if (step.deleting) return;
    // Watch the ConfigMap, make the Greeting its controller (the cluster's garbage collector then
    // deletes it with its Greeting), and create or update it by server-side apply: in that order.
    const child = `${name}-greeting`;
    const configMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: child, namespace },
      data: { text: greeting.spec?.text ?? 'hello' },
    };
    await applyOwned(client, ctx.watcher, configmaps, greeting, configMap, { nodeId: 'greeting-configmap', force: true, signal });
    // Report what this pass achieved, for the generation it read; write status only when it changed.
    const conditions = structuredClone(greeting.status?.conditions ?? []);
    const changed = setStatusCondition(conditions, {
      type: 'Ready',
      status: 'True',
      reason: 'ConfigMapApplied',
      message: `ConfigMap ${child} holds the text`,
      ...(greeting.metadata.generation === undefined ? {} : { observedGeneration: greeting.metadata.generation }),
    });
    if (changed) {
      await client.patchStatus(greetings, { namespace, name }, { conditions }, { signal });
      events.event(greeting, { type: 'Normal', reason: 'ConfigMapApplied', action: 'Apply', note: `ConfigMap ${child} holds the text` });
    }
    // Resolving commits this pass's watches: anything not declared again is dropped.
  };
}
// #endregion handler
