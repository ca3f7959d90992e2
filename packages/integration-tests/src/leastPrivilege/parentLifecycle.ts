// The life cycle of one parent instance of a generated controller, driven
// with the admin KubeConfig: create, update, delete, and what "converged"
// means at each step, read from the cluster only (the child ConfigMap the
// parent controls, its Ready condition, its finalizer, its Events).
import type { KubeConfig } from '@kubernetes/client-node';
import { kubeRequest, type Json } from '@protean/envtest';
import type { Manifest } from './deployManifests.js';
import type { LifecycleStep } from './driveLifecycle.js';

/** The parent resource a generated project defines (its one CustomResourceDefinition). */
export interface ParentType {
  group: string;
  version: string;
  plural: string;
  kind: string;
}

/** The parent type of a manifest set: its only CustomResourceDefinition, first served version. */
export function parentTypeOf(manifests: readonly Manifest[]): ParentType {
  const crds = manifests.filter((o) => o.kind === 'CustomResourceDefinition');
  if (crds.length !== 1) throw new Error(`expected one CustomResourceDefinition in the manifests, found ${crds.length}`);
  const spec = crds[0]!['spec'] as {
    group: string;
    names: { plural: string; kind: string };
    versions: { name: string; served: boolean }[];
  };
  const version = spec.versions.find((v) => v.served)?.name;
  if (version === undefined) throw new Error(`CRD ${crds[0]!.metadata.name} serves no version`);
  return { group: spec.group, version, plural: spec.names.plural, kind: spec.names.kind };
}

interface Stored extends Json {
  metadata: {
    name: string;
    uid: string;
    generation?: number;
    finalizers?: string[];
    ownerReferences?: { uid: string; controller?: boolean }[];
  };
}

/** A change the test makes to the parent. */
export type Step = 'create' | 'update' | 'delete';

/** Drives one parent `name` in `namespace` through create, update and delete. */
export class ParentLifecycle {
  private readonly path: string;

  constructor(
    private readonly admin: KubeConfig,
    readonly type: ParentType,
    readonly namespace: string,
    readonly name: string,
  ) {
    this.path = `/apis/${type.group}/${type.version}/namespaces/${namespace}/${type.plural}`;
  }

  /** Removes what a failed run left behind: the parent (finalizers dropped) and its child ConfigMaps. */
  async cleanUp(): Promise<void> {
    await kubeRequest(this.admin, 'PATCH', `${this.path}/${this.name}`, {
      body: { metadata: { finalizers: null } },
      contentType: 'application/merge-patch+json',
    });
    await kubeRequest(this.admin, 'DELETE', `${this.path}/${this.name}`);
  }

  /** Makes the change of `step` on the server. */
  async act(step: Step): Promise<void> {
    let r;
    if (step === 'create') {
      r = await kubeRequest(this.admin, 'POST', this.path, {
        body: {
          apiVersion: `${this.type.group}/${this.type.version}`,
          kind: this.type.kind,
          metadata: { name: this.name },
          spec: { message: 'hello' },
        },
      });
    } else if (step === 'update') {
      r = await kubeRequest(this.admin, 'PATCH', `${this.path}/${this.name}`, {
        body: { spec: { message: 'hello again' } },
        contentType: 'application/merge-patch+json',
      });
    } else {
      r = await kubeRequest(this.admin, 'DELETE', `${this.path}/${this.name}`);
    }
    if (r.status >= 300) throw new Error(`${step} ${this.type.kind} ${this.namespace}/${this.name}: ${r.status} ${r.text.slice(0, 300)}`);
  }

  /**
   * What the controller has not done yet after `step` (empty once it has):
   * after create, the child ConfigMap it controls holds the message, the
   * Ready condition is True for the current generation, the finalizer is
   * set and an Event about the parent is recorded; after update, the same
   * for the new message and generation, and the repeated Event counted into
   * its series; after delete, the parent is gone (the finalizer ran).
   */
  async pending(step: Step): Promise<string[]> {
    const got = await kubeRequest(this.admin, 'GET', `${this.path}/${this.name}`);
    if (step === 'delete') return got.status === 404 ? [] : ['the parent to be gone (its finalizer removed)'];
    if (got.status !== 200) return [`the parent to exist (GET answered ${got.status})`];
    const parent = got.json as Stored;
    const message = step === 'create' ? 'hello' : 'hello again';
    const missing: string[] = [];
    if ((parent.metadata.finalizers ?? []).length === 0) missing.push('a finalizer on the parent');
    const conditions =
      (parent['status'] as { conditions?: { type: string; status: string; observedGeneration?: number }[] } | undefined)?.conditions ?? [];
    const ready = conditions.find((c) => c.type === 'Ready');
    if (ready?.status !== 'True' || ready.observedGeneration !== parent.metadata.generation) {
      missing.push(`the Ready condition True for generation ${parent.metadata.generation} (have ${JSON.stringify(ready)})`);
    }
    const children = await kubeRequest(this.admin, 'GET', `/api/v1/namespaces/${this.namespace}/configmaps`);
    const child = ((children.json['items'] ?? []) as Stored[]).find((c) =>
      (c.metadata.ownerReferences ?? []).some((o) => o.uid === parent.metadata.uid && o.controller === true),
    );
    const data = child?.['data'] as Record<string, string> | undefined;
    if (data?.['message'] !== message) missing.push(`a child ConfigMap controlled by the parent holding message "${message}"`);
    const events = await kubeRequest(this.admin, 'GET', `/apis/events.k8s.io/v1/namespaces/${this.namespace}/events`);
    const about = ((events.json['items'] ?? []) as (Json & { regarding?: { uid?: string }; series?: { count: number } })[]).filter(
      (e) => e.regarding?.uid === parent.metadata.uid,
    );
    const counted = Math.max(0, ...about.map((e) => e.series?.count ?? 1));
    if (step === 'create' && about.length === 0) missing.push('an Event about the parent');
    if (step === 'update' && counted < 2) missing.push(`the repeated Event counted into a series (highest count ${counted})`);
    return missing;
  }

  /** The step `step` as {@link driveLifecycle} runs it. */
  step(step: Step): LifecycleStep {
    return {
      name: `${step} ${this.type.kind} ${this.namespace}/${this.name}`,
      act: () => this.act(step),
      pending: () => this.pending(step),
    };
  }
}
