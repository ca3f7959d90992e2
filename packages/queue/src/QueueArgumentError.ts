/**
 * Thrown when a queue or rate limiter gets an argument it cannot honour (a
 * negative or `NaN` delay, `qps <= 0`, a fractional burst, ...). The message
 * names the call, the argument and the value; `argument` and `value` carry
 * them for code. It is a `RangeError`, so `instanceof RangeError` also works.
 */
export class QueueArgumentError extends RangeError {
  override readonly name = 'QueueArgumentError';

  /**
   * @param where - the call that rejected the argument, e.g. `DelayingWorkQueue.addAfter`
   * @param argument - the parameter name, e.g. `delayMs`
   * @param value - the value that was passed
   * @param rule - what a valid value looks like
   */
  constructor(
    where: string,
    readonly argument: string,
    readonly value: unknown,
    rule: string,
  ) {
    super(`${where}: invalid ${argument}=${describe(value)}: ${rule}`);
  }
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (value === undefined || value === null) return String(value);
  return typeof value;
}
