/**
 * A pass of a `createTestController` controller whose handler failed:
 * what the controller reports to `ControllerObserver.onHandlerError` (not a
 * requeue signal, not a NotFound), with the instance it was for.
 */
export interface FailedPass {
  /** How many passes of this controller had failed, this one included (1 for the first). */
  readonly seq: number;
  /** The parent GVR as `group/version/resource`. */
  readonly parent: string;
  /**
   * The instance, `namespace/name` (`name` when cluster-scoped). Unset when
   * it cannot be told apart: several passes of the parent were in flight
   * (`config.workers` > 1) and failed alike; {@link FailedPass.inFlight} lists them.
   */
  readonly instance?: string;
  /** The parent's passes in flight when this one failed (this one among them), as instance keys. */
  readonly inFlight: readonly string[];
  /** The error the handler threw or rejected with (a `ReconcileTimeoutError` for a pass past its time limit). */
  readonly error: unknown;
  /** The error in one line: `Name: first line of the message`, or the API status and reason. */
  readonly summary: string;
  /**
   * The first frame of the error's stack that is not the error's own
   * constructor, node_modules or Node's internals, e.g.
   * `at handler (/src/shop.test.ts:12:11)`; unset when the error has no stack.
   */
  readonly frame?: string;
  /** Failed passes of the instance in a row, this one included, as the controller's status counts them. */
  readonly failures?: number;
  /**
   * True: the controller gave the instance up, this failure used its last
   * retry (`config.queueMaxRetries`); false: it is retried with backoff.
   * Unset, like {@link FailedPass.failures}, when the controller's status had no record of it.
   */
  readonly dropped?: boolean;
}
