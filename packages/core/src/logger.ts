import { pino, type DestinationStream, type Logger as PinoLogger, type LoggerOptions } from 'pino';
import { serializeError } from './errorSerializer.js';

/**
 * The structured logger every Protean component takes: a pino logger. Each
 * component logs through its own child (`{ component: 'watch-manager' }`),
 * with `gvr` and `instance` in the fields.
 */
export type Logger = PinoLogger;

/**
 * Creates a pino logger with Protean's defaults: `level` from `LOG_LEVEL`,
 * else `info`, overridden by `options.level`. It writes one JSON line per
 * record to `destination`, by default **stdout** (pino's default,
 * `pino.destination(1)`, synchronous writes).
 *
 * Easy to get wrong: logs go to stdout, not stderr; for stderr pass
 * `pino.destination(2)`, for a file `pino.destination('/path')`, or a
 * `transport` in `options` (then leave `destination` out).
 */
export function createLogger(options: LoggerOptions = {}, destination?: DestinationStream): Logger {
  const resolved = { level: process.env['LOG_LEVEL'] ?? 'info', serializers: { err: serializeError }, ...options };
  return destination === undefined ? pino(resolved) : pino(resolved, destination);
}

/** A logger that discards everything; handy in tests and examples. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
