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
 * record to `destination`, by default **stdout**: file descriptor 1, written
 * as pino's default writes it (`pino.destination({ dest: 1 })`: a
 * SonicBoom, asynchronous writes, flushed when the process exits).
 *
 * Easy to get wrong: logs go to stdout, not stderr; for stderr pass
 * `pino.destination(2)`, for a file `pino.destination('/path')`, or a
 * `transport` in `options` (then leave `destination` out). Unlike pino's
 * own default, the default destination does not read `process.stdout`:
 * that getter loads node's streams (about 2 MiB of RSS) for a file
 * descriptor that is 1 anyway, and a `process.stdout.write` replaced by a
 * test harness does not see these lines.
 */
export function createLogger(options: LoggerOptions = {}, destination?: DestinationStream): Logger {
  const resolved = { level: process.env['LOG_LEVEL'] ?? 'info', serializers: { err: serializeError }, ...options };
  if (destination !== undefined) return pino(resolved, destination);
  // A transport is the destination.
  const { transport } = resolved;
  return transport === undefined || transport === null ? pino(resolved, pino.destination({ dest: 1 })) : pino(resolved);
}

/** A logger that discards everything; handy in tests and examples. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
