/** How many in-flight item keys the message lists before eliding the rest. */
const LISTED_ITEMS = 10;

/**
 * `DynamicController.start` rejects with this when handlers still run
 * `timeoutMs` (the config's `queueShutdownTimeoutMs`) after shutdown began.
 * `inFlight` holds the keys (`group/version/resource|namespace/name`) of the
 * items whose handlers had not returned. Those handlers were signalled
 * through `ctx.signal` and are abandoned, not killed.
 */
export class ShutdownTimeoutError extends Error {
  override readonly name = 'ShutdownTimeoutError';
  readonly timeoutMs: number;
  readonly inFlight: readonly string[];

  constructor(timeoutMs: number, inFlight: readonly string[]) {
    const listed = inFlight.slice(0, LISTED_ITEMS).join(', ');
    const more = inFlight.length > LISTED_ITEMS ? ` and ${inFlight.length - LISTED_ITEMS} more` : '';
    super(
      `DynamicController shutdown timed out after queueShutdownTimeoutMs=${timeoutMs}ms ` +
        `with ${inFlight.length} handler(s) still running: ${listed}${more}`,
    );
    this.timeoutMs = timeoutMs;
    this.inFlight = Object.freeze([...inFlight]);
  }
}
