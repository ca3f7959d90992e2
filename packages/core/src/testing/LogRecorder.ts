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
 * A record is the line as pino serialized it: the child logger's bindings
 * and the call's fields side by side, an `err` as `{ type, message, stack }`;
 * {@link bindingsOf} tells the bindings apart.
 * Easy to get wrong: records below `level` (default `debug`) are not kept.
 */
export class LogRecorder {
  readonly records: LogRecord[] = [];
  readonly logger: Logger;
  private readonly bindingsByRecord = new WeakMap<LogRecord, Record<string, unknown>>();
  private writing: Record<string, unknown> = {};

  constructor(level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' = 'debug') {
    const noteBindings = (bindings: Record<string, unknown>): void => {
      this.writing = bindings;
    };
    this.logger = createLogger({
      level,
      hooks: {
        // Note the writing logger's bindings (`this` is that logger); its line follows synchronously.
        logMethod(args, method) {
          noteBindings(this.bindings());
          method.apply(this, args);
        },
        // Keep the serialized line and write nothing.
        streamWrite: (line: string) => {
          const record = JSON.parse(line) as LogRecord;
          this.records.push(record);
          this.bindingsByRecord.set(record, this.writing);
          return '';
        },
      },
    });
  }

  /** The bindings of the (child) logger that wrote `record`, e.g. `{ component: 'x' }`; `{}` for the root logger. */
  bindingsOf(record: LogRecord): Record<string, unknown> {
    return this.bindingsByRecord.get(record) ?? {};
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
