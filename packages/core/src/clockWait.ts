import type { Clock } from './clock.js';

/**
 * Resolves after `ms` on `clock`, or as soon as `signal` aborts or `wake`
 * is called, whichever comes first; never rejects.
 */
export function sleepOrWake(clock: Clock, ms: number, signal?: AbortSignal): { readonly done: Promise<void>; readonly wake: () => void } {
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

/**
 * A signal that aborts after `ms` on `clock`, with an error saying `what`
 * took too long, or with `parent`; `dispose` clears the timer. For a
 * request that must not outlive a deadline (a lease renewal).
 */
export function deadlineSignal(
  clock: Clock,
  ms: number,
  what: string,
  parent?: AbortSignal,
): { readonly signal: AbortSignal; readonly dispose: () => void } {
  const abort = new AbortController();
  const onParent = (): void => abort.abort(parent?.reason);
  const timer = clock.setTimeout(() => abort.abort(new Error(`${what} took longer than ${Math.round(ms)} ms`)), Math.max(0, ms));
  if (parent?.aborted === true) onParent();
  else parent?.addEventListener('abort', onParent, { once: true });
  return {
    signal: abort.signal,
    dispose: () => {
      clock.clearTimeout(timer);
      parent?.removeEventListener('abort', onParent);
    },
  };
}

/**
 * A loop's wait between rounds that something else can cut short: `wait`
 * sleeps on the clock until {@link wake} is called (or `signal` aborts).
 * With `remember`, a wake while nobody waits makes the next `wait` return
 * at once; without, it is dropped.
 */
export class Waker {
  private wakeUp: (() => void) | undefined;
  private requested = false;
  private woken = false;

  constructor(
    private readonly clock: Clock,
    private readonly remember: boolean,
  ) {}

  wake(): void {
    const wakeUp = this.wakeUp;
    this.wakeUp = undefined;
    if (wakeUp !== undefined) {
      this.woken = true;
      wakeUp();
    } else if (this.remember) this.requested = true;
  }

  /** Resolves after `ms`, when `signal` aborts, or when woken; true when woken. */
  async wait(ms: number, signal?: AbortSignal): Promise<boolean> {
    if (this.requested) {
      this.requested = false;
      return true;
    }
    this.woken = false;
    const wait = sleepOrWake(this.clock, ms, signal);
    this.wakeUp = wait.wake;
    await wait.done;
    this.wakeUp = undefined;
    this.requested = false;
    return this.woken;
  }
}
