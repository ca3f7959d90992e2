import { CoreV1Api, CustomObjectsApi, type KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { isNotFound } from '@protean/core';
import { instanceKey, type Ref } from './instanceKey.js';
import { apiVersionOf, type ParentKind } from './kinds.js';
import type { LatencyTracker } from './LatencyTracker.js';
import type { LiveLog } from './LiveLog.js';
import { requestOptions } from './requestOptions.js';
import type { WebAppObject, WebAppSpec } from './WebAppObject.js';

/**
 * What the scenario does to the cluster, as a user with kubectl would:
 * every change goes through the API server, is logged, and is timed from
 * its API response to the next reconcile of each instance it affects.
 */
export class ScenarioApi {
  private readonly objects: CustomObjectsApi;
  private readonly core: CoreV1Api;

  constructor(
    kubeConfig: KubeConfig,
    private readonly log: LiveLog,
    private readonly latency: LatencyTracker,
    private readonly signal: AbortSignal,
  ) {
    this.objects = kubeConfig.makeApiClient(CustomObjectsApi);
    this.core = kubeConfig.makeApiClient(CoreV1Api);
  }

  async createInstance(kind: ParentKind, ref: Ref, spec: WebAppSpec): Promise<void> {
    const body = { apiVersion: apiVersionOf(kind), kind: kind.kind, metadata: { name: ref.name, namespace: ref.namespace }, spec };
    await this.latency.track([instanceKey(kind.gvr, ref)], () =>
      this.objects.createNamespacedCustomObject({ ...this.params(kind, ref), body }, requestOptions(this.signal)),
    );
    this.log.line(`scenario: created ${kind.singular} ${ref.namespace}/${ref.name} ${JSON.stringify(spec)}`);
  }

  async patchSpec(kind: ParentKind, ref: Ref, spec: Partial<WebAppSpec>): Promise<void> {
    await this.latency.track([instanceKey(kind.gvr, ref)], () =>
      this.objects.patchNamespacedCustomObject(
        { ...this.params(kind, ref), name: ref.name, body: { spec } },
        requestOptions(this.signal, 'merge'),
      ),
    );
    this.log.line(`scenario: patched ${kind.singular} ${ref.namespace}/${ref.name} spec ${JSON.stringify(spec)}`);
  }

  async deleteInstance(kind: ParentKind, ref: Ref): Promise<void> {
    await this.latency.track([instanceKey(kind.gvr, ref)], () =>
      this.objects.deleteNamespacedCustomObject({ ...this.params(kind, ref), name: ref.name }, requestOptions(this.signal)),
    );
    this.log.line(`scenario: deleted ${kind.singular} ${ref.namespace}/${ref.name}`);
  }

  async readInstance(kind: ParentKind, ref: Ref): Promise<WebAppObject | undefined> {
    try {
      return (await this.objects.getNamespacedCustomObject(
        { ...this.params(kind, ref), name: ref.name },
        requestOptions(this.signal),
      )) as WebAppObject;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** Creates a ConfigMap; `affects` are the instance keys whose reconcile this should trigger. */
  async createConfigMap(ref: Ref, labels: Record<string, string>, affects: readonly string[]): Promise<void> {
    const body: V1ConfigMap = { metadata: { name: ref.name, namespace: ref.namespace, labels }, data: { note: 'added by the scenario' } };
    await this.latency.track(affects, () =>
      this.core.createNamespacedConfigMap({ namespace: ref.namespace, body }, requestOptions(this.signal)),
    );
    this.log.line(`scenario: created configmap ${ref.namespace}/${ref.name} labels ${JSON.stringify(labels)}`);
  }

  async labelConfigMap(ref: Ref, labels: Record<string, string>, affects: readonly string[]): Promise<void> {
    await this.latency.track(affects, () =>
      this.core.patchNamespacedConfigMap(
        { namespace: ref.namespace, name: ref.name, body: { metadata: { labels } } },
        requestOptions(this.signal, 'merge'),
      ),
    );
    this.log.line(`scenario: relabelled configmap ${ref.namespace}/${ref.name} ${JSON.stringify(labels)}`);
  }

  async deleteConfigMap(ref: Ref, affects: readonly string[]): Promise<void> {
    await this.latency.track(affects, () =>
      this.core.deleteNamespacedConfigMap({ namespace: ref.namespace, name: ref.name }, requestOptions(this.signal)),
    );
    this.log.line(`scenario: deleted configmap ${ref.namespace}/${ref.name}`);
  }

  async readConfigMap(ref: Ref): Promise<V1ConfigMap | undefined> {
    try {
      return await this.core.readNamespacedConfigMap({ namespace: ref.namespace, name: ref.name }, requestOptions(this.signal));
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  private params(kind: ParentKind, ref: Ref): { group: string; version: string; plural: string; namespace: string } {
    return { group: kind.gvr.group, version: kind.gvr.version, plural: kind.gvr.resource, namespace: ref.namespace };
  }
}
