import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { isNotFound, type NamespacedName } from '@protean/core';
import type { E2eKind } from './kinds.js';

/** What the test handler writes into an instance's status. */
export interface InstanceStatus {
  /** ConfigMaps of the namespace labelled `app=<instance>`. */
  readonly count?: number;
  /** `metadata.generation` the count and child ConfigMap were computed for. */
  readonly observedGeneration?: number;
}

/** An instance of an {@link E2eKind} as the API server returns it. */
export interface InstanceObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly uid: string;
    readonly resourceVersion: string;
    readonly generation?: number;
    readonly labels?: Record<string, string>;
  };
  readonly spec?: { readonly message?: string };
  readonly status?: InstanceStatus;
}

/** Label on a child ConfigMap naming its instance; deliberately not `app`, so children are not counted. */
export const OWNER_LABEL = 'e2e.protean.dev/owner';

/**
 * client-node 1.4 sends every patch as `application/json-patch+json`; a
 * `Content-Type` middleware makes it a JSON merge patch.
 */
const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/**
 * The admin-side view of one namespace of a real API server, for the test
 * and for its handlers: instances of the e2e kinds and ConfigMaps.
 *
 * Easy to get wrong: a handler must use these admin clients even when the
 * controller's informers run as a restricted user; RBAC tests restrict the
 * informers only.
 */
export class E2eCluster {
  readonly core: CoreV1Api;
  readonly objects: CustomObjectsApi;

  constructor(
    kubeConfig: KubeConfig,
    readonly namespace: string,
  ) {
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.objects = kubeConfig.makeApiClient(CustomObjectsApi);
  }

  async createNamespace(): Promise<void> {
    await this.core.createNamespace({ body: { metadata: { name: this.namespace } } });
  }

  async createInstance(kind: E2eKind, name: string, message: string): Promise<InstanceObject> {
    const { group, version, resource: plural } = kind.gvr;
    const body = { apiVersion: `${group}/${version}`, kind: kind.kind, metadata: { name, namespace: this.namespace }, spec: { message } };
    return (await this.objects.createNamespacedCustomObject({ group, version, plural, namespace: this.namespace, body })) as InstanceObject;
  }

  /** Reads an instance; `undefined` when it does not exist. */
  async getInstance(kind: E2eKind, req: NamespacedName): Promise<InstanceObject | undefined> {
    const { group, version, resource: plural } = kind.gvr;
    try {
      return (await this.objects.getNamespacedCustomObject({
        group,
        version,
        plural,
        namespace: req.namespace,
        name: req.name,
      })) as InstanceObject;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async instance(kind: E2eKind, name: string): Promise<InstanceObject | undefined> {
    return this.getInstance(kind, { namespace: this.namespace, name });
  }

  async listInstances(kind: E2eKind): Promise<InstanceObject[]> {
    const { group, version, resource: plural } = kind.gvr;
    const list = (await this.objects.listNamespacedCustomObject({ group, version, plural, namespace: this.namespace })) as {
      items: InstanceObject[];
    };
    return list.items;
  }

  /** A spec change: bumps `metadata.generation`. */
  async setMessage(kind: E2eKind, name: string, message: string): Promise<InstanceObject> {
    return this.patchInstance(kind, name, { spec: { message } });
  }

  /** A metadata-only change: `metadata.generation` stays. */
  async labelInstance(kind: E2eKind, name: string, labels: Record<string, string>): Promise<InstanceObject> {
    return this.patchInstance(kind, name, { metadata: { labels } });
  }

  async deleteInstance(kind: E2eKind, name: string): Promise<void> {
    const { group, version, resource: plural } = kind.gvr;
    await this.objects.deleteNamespacedCustomObject({ group, version, plural, namespace: this.namespace, name });
  }

  /** Merge-patches the status subresource (never bumps the generation). */
  async writeStatus(kind: E2eKind, req: NamespacedName, status: InstanceStatus): Promise<void> {
    const { group, version, resource: plural } = kind.gvr;
    await this.objects.patchNamespacedCustomObjectStatus(
      { group, version, plural, namespace: req.namespace, name: req.name, body: { status } },
      MERGE_PATCH,
    );
  }

  async createConfigMap(name: string, labels: Record<string, string>, data: Record<string, string> = {}): Promise<V1ConfigMap> {
    return this.core.createNamespacedConfigMap({ namespace: this.namespace, body: { metadata: { name, labels }, data } });
  }

  /** Sets (or, with `null`, removes) labels of a ConfigMap. */
  async labelConfigMap(name: string, labels: Record<string, string | null>): Promise<V1ConfigMap> {
    return this.core.patchNamespacedConfigMap({ namespace: this.namespace, name, body: { metadata: { labels } } }, MERGE_PATCH);
  }

  async deleteConfigMap(name: string): Promise<void> {
    await this.core.deleteNamespacedConfigMap({ namespace: this.namespace, name });
  }

  /** Reads a ConfigMap; `undefined` when it does not exist. */
  async configMap(name: string, namespace = this.namespace): Promise<V1ConfigMap | undefined> {
    try {
      return await this.core.readNamespacedConfigMap({ namespace, name });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async listConfigMaps(labelSelector?: string, namespace = this.namespace): Promise<V1ConfigMap[]> {
    const list = await this.core.listNamespacedConfigMap(labelSelector === undefined ? { namespace } : { namespace, labelSelector });
    return list.items;
  }

  /** Creates the child ConfigMap of an instance, or brings its data back to `data`. */
  async applyChild(
    namespace: string,
    name: string,
    owner: string,
    data: Record<string, string>,
  ): Promise<'created' | 'updated' | 'unchanged'> {
    const current = await this.configMap(name, namespace);
    if (current === undefined) {
      await this.core.createNamespacedConfigMap({ namespace, body: { metadata: { name, labels: { [OWNER_LABEL]: owner } }, data } });
      return 'created';
    }
    const same =
      Object.keys(data).length === Object.keys(current.data ?? {}).length &&
      Object.entries(data).every(([k, v]) => current.data?.[k] === v);
    if (same) return 'unchanged';
    await this.core.patchNamespacedConfigMap({ namespace, name, body: { data } }, MERGE_PATCH);
    return 'updated';
  }

  private async patchInstance(kind: E2eKind, name: string, body: object): Promise<InstanceObject> {
    const { group, version, resource: plural } = kind.gvr;
    return (await this.objects.patchNamespacedCustomObject(
      { group, version, plural, namespace: this.namespace, name, body },
      MERGE_PATCH,
    )) as InstanceObject;
  }
}
