/** Where a DynamicController is in its one-way lifecycle. */
export type ControllerState = 'idle' | 'running' | 'stopping' | 'stopped';

/**
 * Thrown (as a rejection) when a DynamicController method is called in a
 * state that does not allow it: `start` twice, `register` before `start` or
 * after shutdown began. `state` is the state at the time of the call.
 */
export class ControllerStateError extends Error {
  override readonly name = 'ControllerStateError';

  constructor(
    message: string,
    readonly state: ControllerState,
  ) {
    super(message);
  }
}
