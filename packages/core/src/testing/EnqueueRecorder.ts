import { gvrEquals, gvrKey, namespacedNameKey, type GroupVersionResource, type NamespacedName } from '../index.js';
import { type EnqueueFunc } from '../events.js';

/** One recorded call of an {@link EnqueueFunc}. */
export interface EnqueueCall {
  readonly parentGVR: GroupVersionResource;
  readonly instance: NamespacedName;
}

/**
 * Records the calls of an {@link EnqueueFunc}: hand `recorder.enqueue` to a
 * watch coordinator under test and assert on `calls`, `instances(gvr)`, or
 * the printed `keys()` (`take()` to assert on each step's calls alone).
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

  /**
   * Every call as `group/version/resource namespace/name` (the parent GVR's
   * `gvrKey`, then the instance's `namespacedNameKey`), in call order.
   */
  keys(): string[] {
    return this.calls.map((c) => `${gvrKey(c.parentGVR)} ${namespacedNameKey(c.instance)}`);
  }

  /** The {@link keys} so far, sorted, and forgets them (as {@link clear} does). */
  take(): string[] {
    const keys = this.keys().sort();
    this.clear();
    return keys;
  }

  clear(): void {
    this.calls.length = 0;
  }
}
