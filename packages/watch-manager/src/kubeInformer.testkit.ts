import type { ResourceEventHandler } from '@protean/core';
import { Informer, type InformerOptions } from './Informer.js';
import type { KubernetesListWatch } from './KubernetesListWatch.js';

/**
 * A {@link KubernetesListWatch} under the informer engine, as
 * `InformerWatchManager` runs it, for tests of the Kubernetes wire: the
 * engine's cache and events plus the wire's `lastSyncResourceVersion`, and
 * every failure the wire reported (`errors`).
 */
export class KubeTestInformer extends Informer {
  readonly errors: Error[];
  readonly listWatch: KubernetesListWatch;

  constructor(listWatch: KubernetesListWatch, handler: ResourceEventHandler = {}, engine: InformerOptions = {}) {
    const errors: Error[] = [];
    super(
      listWatch,
      {
        onAdd: (obj, initial) => handler.onAdd?.(obj, initial),
        onUpdate: (old, obj, resync) => handler.onUpdate?.(old, obj, resync),
        onDelete: (obj) => handler.onDelete?.(obj),
        onError: (err) => errors.push(err),
      },
      engine,
    );
    this.errors = errors;
    this.listWatch = listWatch;
  }

  /** The resourceVersion the next watch starts from. */
  lastSyncResourceVersion(): string {
    return this.listWatch.lastSyncResourceVersion();
  }
}
