/**
 * A promise with its `resolve`/`reject` exposed, to hold a handler at a
 * known point until the test lets it go (`await gate.promise` inside the
 * handler, `gate.resolve()` in the test).
 * Easy to get wrong: release every gate a test created before it ends, or
 * the controller's shutdown waits on the held handler.
 */
export class Deferred<T = void> {
  readonly promise: Promise<T>;
  private settledFlag = false;
  private resolveFn!: (value: T) => void;
  private rejectFn!: (reason: unknown) => void;

  constructor() {
    this.promise = new Promise<T>((resolve, reject) => {
      this.resolveFn = resolve;
      this.rejectFn = reject;
    });
  }

  resolve(value: T): void {
    this.settledFlag = true;
    this.resolveFn(value);
  }

  reject(reason: unknown): void {
    this.settledFlag = true;
    this.rejectFn(reason);
  }

  /** True once `resolve` or `reject` was called. */
  settled(): boolean {
    return this.settledFlag;
  }
}
