import { describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { createLogger } from './logger.js';

describe('createLogger', () => {
  it('writes to stdout (file descriptor 1) by default', () => {
    const logger = createLogger() as unknown as Record<symbol, { fd?: number }>;
    const stream = logger[pino.symbols.streamSym]!;
    expect(stream.fd).toBe(1);
  });

  it('writes one JSON line per record to the destination it is given, at the level of its options', () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    logger.info('not written');
    logger.warn({ gvr: 'apps/v1/deployments' }, 'written');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 40, gvr: 'apps/v1/deployments', msg: 'written' });
  });
});
