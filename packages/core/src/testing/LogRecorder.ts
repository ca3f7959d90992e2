import { createLogger, type Logger } from '../index.js';

/** One log line as pino wrote it (`level` is numeric: 50 = error). */
export interface LogRecord {
  readonly level: number;
  readonly msg?: string;
  readonly [field: string]: unknown;
}

/**
 * A pino {@link Logger} that keeps what it logs instead of printing it, for
 * asserting that a component logged an error and with which fields.
 * Easy to get wrong: records below `level` (default `debug`) are not kept.
 */
export class LogRecorder {
  readonly records: LogRecord[] = [];
  readonly logger: Logger;

  constructor(level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' = 'debug') {
    this.logger = createLogger({
      level,
      hooks: {
        // Keep the serialized line and write nothing.
        streamWrite: (line: string) => {
          this.records.push(JSON.parse(line) as LogRecord);
          return '';
        },
      },
    });
  }

  /** Records at error level or above. */
  errors(): LogRecord[] {
    return this.records.filter((r) => r.level >= 50);
  }

  /** Records whose message contains `text`. */
  find(text: string): LogRecord[] {
    return this.records.filter((r) => typeof r.msg === 'string' && r.msg.includes(text));
  }

  clear(): void {
    this.records.length = 0;
  }
}
