import {
  gvrEquals,
  type EnqueueFunc,
  type GroupVersionResource,
  type NamespacedName,
} from '../index.js';

/** One recorded call of an {@link EnqueueFunc}. */
export interface EnqueueCall {
  readonly parentGVR: GroupVersionResource;
  readonly instance: NamespacedName;
}

/**
 * Records the calls of an {@link EnqueueFunc}: hand `recorder.enqueue` to an
 * watch coordinator under test and assert on `calls` or `instances(gvr)`.
 * Easy to get wrong: `enqueue` is a bound property, pass it as is (not
 * `recorder.enqueue.bind(...)`); duplicates are kept, in call order.
 */
export class EnqueueRecorder {
  readonly calls: EnqueueCall[] = [];

  readonly enqueue: EnqueueFunc = (parentGVR, instance) => {
    this.calls.push({ parentGVR, instance: { namespace: instance.namespace, name: instance.name } });
  };

  /** The instances enqueued for `parentGVR`, in call order, duplicates included. */
  instances(parentGVR: GroupVersionResource): NamespacedName[] {
    return this.calls.filter((c) => gvrEquals(c.parentGVR, parentGVR)).map((c) => c.instance);
  }

  clear(): void {
    this.calls.length = 0;
  }
}
