import { describe, expect, it } from '@jest/globals';
import { waitFor, WaitForTimeoutError, waitForTimeoutMs } from './waitFor.js';

describe('waitFor', () => {
  it('resolves once the condition holds', async () => {
    let checks = 0;
    await waitFor(() => ++checks === 3);
    expect(checks).toBe(3);
  });

  it('rejects after the timeout, naming the condition and keeping its last error', async () => {
    const err = await waitFor(
      () => {
        throw new Error('not there yet');
      },
      { timeoutMs: 20, message: 'the thing' },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitForTimeoutError);
    expect((err as Error).message).toContain('the thing: not there yet');
    expect((err as Error).cause).toBeInstanceOf(Error);
  });

  it('shows the condition as an expression when given no message', async () => {
    const done: string[] = [];
    const err = await waitFor(() => done.length === 2, { timeoutMs: 10 }).catch((e: unknown) => e);
    expect((err as Error).message).toBe('condition not met within 10ms: done.length === 2');
  });

  it(`gives up after ${waitForTimeoutMs}ms by default, below Jest's 5 s test timeout, so its own message is what fails the test`, async () => {
    expect(waitForTimeoutMs).toBeLessThan(5_000);
    const err = await waitFor(() => false).catch((e: unknown) => e);
    expect((err as Error).message).toBe(`condition not met within ${waitForTimeoutMs}ms: false`);
  });

  it('treats a truthy non-true result as not met', async () => {
    await expect(waitFor(() => 1 as unknown as boolean, { timeoutMs: 10 })).rejects.toThrow(WaitForTimeoutError);
  });
});
