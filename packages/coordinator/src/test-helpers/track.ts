/** Observes a promise without awaiting it: `state` is 'pending' until it settles. */
export function track(promise: Promise<unknown>): { state: 'pending' | 'resolved' | 'rejected'; error: unknown } {
  const t: { state: 'pending' | 'resolved' | 'rejected'; error: unknown } = { state: 'pending', error: undefined };
  promise.then(
    () => {
      t.state = 'resolved';
    },
    (err: unknown) => {
      t.state = 'rejected';
      t.error = err;
    },
  );
  return t;
}
