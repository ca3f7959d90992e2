import { describe, expect, it, jest } from '@jest/globals';
import { pino } from 'pino';
import { createLogger } from './logger.js';

describe('createLogger', () => {
  it('writes to stdout (file descriptor 1) by default', () => {
    const logger = createLogger() as unknown as Record<symbol, { fd?: number }>;
    const stream = logger[pino.symbols.streamSym]!;
    expect(stream.fd).toBe(1);
  });

  it("does not read process.stdout for it (the getter loads node's streams)", () => {
    const stdout = jest.spyOn(process, 'stdout', 'get');
    try {
      createLogger({ level: 'silent' }).info('not written');
      expect(stdout).not.toHaveBeenCalled();
    } finally {
      stdout.mockRestore();
    }
  });

  it('leaves the destination to a transport given in its options', () => {
    const logger = createLogger({ transport: { target: 'pino/file', options: { destination: 1 } } });
    const stream = (logger as unknown as Record<symbol, { fd?: number; worker?: unknown }>)[pino.symbols.streamSym]!;
    expect(stream.fd).toBeUndefined();
    expect(stream.worker).toBeDefined();
    logger.flush();
    (stream as unknown as { end(): void }).end();
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
