/** What {@link track} has seen of a promise so far. */
export interface TrackedPromise<T> {
  /** `pending` until the promise settles. */
  readonly state: 'pending' | 'resolved' | 'rejected';
  /** The value it resolved with; `undefined` until then. */
  readonly value: T | undefined;
  /** The reason it rejected with; `undefined` until then. */
  readonly error: unknown;
  /** True once it resolved or rejected. */
  settled(): boolean;
}

/**
 * Observes a promise without awaiting it, so a test can check that an
 * operation is still waiting, then release it and see how it ended. Also
 * marks the promise as handled: a rejection it tracks is no unhandled one.
 *
 * Easy to get wrong: the state moves on a later microtask, not when the
 * promise settles; await `flushMicrotasks()` (or advance a fake clock
 * with `advanceAsync`) before reading it.
 */
export function track<T>(promise: Promise<T>): TrackedPromise<T> {
  const t = {
    state: 'pending' as TrackedPromise<T>['state'],
    value: undefined as T | undefined,
    error: undefined as unknown,
    settled: () => t.state !== 'pending',
  };
  promise.then(
    (value) => {
      t.state = 'resolved';
      t.value = value;
    },
    (err: unknown) => {
      t.state = 'rejected';
      t.error = err;
    },
  );
  return t;
}
