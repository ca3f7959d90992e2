import type { Clock } from '@protean/core';

/** Resolves after `ms` on `clock`, or as soon as `signal` aborts or `wake` is called; never rejects. */
export function sleepOrWake(clock: Clock, ms: number, signal?: AbortSignal): { done: Promise<void>; wake: () => void } {
  let wake!: () => void;
  const done = new Promise<void>((resolve) => {
    if (signal?.aborted === true) {
      wake = () => {};
      resolve();
      return;
    }
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      clock.clearTimeout(timer);
      signal?.removeEventListener('abort', finish);
      resolve();
    };
    const timer = clock.setTimeout(finish, Math.max(0, ms));
    signal?.addEventListener('abort', finish, { once: true });
    wake = finish;
  });
  return { done, wake };
}

/** A signal that aborts after `ms` on `clock` or with `parent`; `dispose` clears the timer. */
export function deadlineSignal(clock: Clock, ms: number, what: string, parent: AbortSignal): { signal: AbortSignal; dispose: () => void } {
  const abort = new AbortController();
  const onParent = (): void => abort.abort(parent.reason);
  const timer = clock.setTimeout(() => abort.abort(new Error(`${what} took longer than ${Math.round(ms)} ms`)), Math.max(0, ms));
  if (parent.aborted) onParent();
  else parent.addEventListener('abort', onParent, { once: true });
  return {
    signal: abort.signal,
    dispose: () => {
      clock.clearTimeout(timer);
      parent.removeEventListener('abort', onParent);
    },
  };
}
