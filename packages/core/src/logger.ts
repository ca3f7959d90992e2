import { pino, type Logger as PinoLogger, type LoggerOptions } from 'pino';
import { serializeError } from './errorSerializer.js';

/**
 * The structured logger every Protean component takes: a pino logger. Each
 * component logs through its own child (`{ component: 'watch-manager' }`),
 * with `gvr` and `instance` in the fields.
 */
export type Logger = PinoLogger;

/** Creates a pino logger with Protean's defaults (`level` from `LOG_LEVEL`, else `info`). */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino({ level: process.env['LOG_LEVEL'] ?? 'info', serializers: { err: serializeError }, ...options });
}

/** A logger that discards everything; handy in tests and examples. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
