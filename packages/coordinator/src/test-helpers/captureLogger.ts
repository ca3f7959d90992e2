import { createLogger, type Logger } from '@protean/core';

/** A log call seen by {@link captureLogger}: the logger's bindings and the call's arguments. */
export interface CapturedLog {
  readonly level: number;
  readonly bindings: Record<string, unknown>;
  readonly obj: Record<string, unknown>;
  readonly msg: string | undefined;
}

/** A logger that writes nothing and records every call at or above `level`. */
export function captureLogger(level = 'debug'): { logger: Logger; logs: CapturedLog[] } {
  const logs: CapturedLog[] = [];
  const logger = createLogger({
    level,
    hooks: {
      logMethod(args, _method, levelValue) {
        const [first, second] = args as unknown[];
        const obj = typeof first === 'object' && first !== null ? (first as Record<string, unknown>) : {};
        const msg = typeof first === 'string' ? first : typeof second === 'string' ? second : undefined;
        logs.push({ level: levelValue, bindings: this.bindings(), obj, msg });
      },
    },
  });
  return { logger, logs };
}
