import { waitFor, WaitForTimeoutError, type WaitForOptions } from '@protean/core/testing';
import { describeFailedPass } from './describeFailedPass.js';
import type { FailedPassLog } from './FailedPassLog.js';

/** The default timeout of a test controller's `waitFor` and where it was set. */
export interface WaitForDefault {
  readonly timeoutMs: number;
  /** `kit`: the test kit's default; `option`: `createTestController({ waitForTimeoutMs })`. */
  readonly from: 'kit' | 'option';
}

/**
 * `TestController.waitFor`: {@link waitFor} whose timeout error also says
 * which default timeout applied and how to raise it, and what the last
 * failed pass of the controller was (instance, error, the frame that threw).
 */
export function controllerWaitFor(
  failures: FailedPassLog,
  defaults: WaitForDefault,
): (condition: () => boolean | Promise<boolean>, options?: WaitForOptions) => Promise<void> {
  return async (condition, options = {}) => {
    const failedBefore = failures.count();
    const timeoutMs = options.timeoutMs ?? defaults.timeoutMs;
    try {
      // core's waitFor shows the condition as an expression (`describeCondition`) when no message is given.
      await waitFor(condition, { ...options, timeoutMs });
    } catch (err) {
      if (!(err instanceof WaitForTimeoutError)) throw err;
      const lines = [err.message];
      if (options.timeoutMs === undefined) lines.push(timeoutNote(defaults));
      lines.push(...runningNote(failures), failureNote(failures, failedBefore));
      throw new WaitForTimeoutError(lines.join('\n  '), err.cause === undefined ? undefined : { cause: err.cause });
    }
  };
}

function timeoutNote({ timeoutMs, from }: WaitForDefault): string {
  return from === 'kit'
    ? `${timeoutMs}ms is createTestController's default waitFor timeout (below Jest's 5 s test timeout); ` +
        'raise it with t.waitFor(condition, { timeoutMs }) or createTestController({ waitForTimeoutMs })'
    : `${timeoutMs}ms is this controller's waitForTimeoutMs; raise it there or with t.waitFor(condition, { timeoutMs })`;
}

/** The passes still running when the wait gave up: a handler that never returns shows here. */
function runningNote(failures: FailedPassLog): string[] {
  const inFlight = failures.attached()?.queueStatus().inFlight ?? [];
  if (inFlight.length === 0) return [];
  const shown = inFlight
    .slice(0, MAX_RUNNING_SHOWN)
    .map((p) => `${p.parent} ${p.namespace === '' ? p.name : `${p.namespace}/${p.name}`} (for ${Math.round(p.ageMs)}ms)`);
  const more = inFlight.length > MAX_RUNNING_SHOWN ? `, and ${inFlight.length - MAX_RUNNING_SHOWN} more` : '';
  return [`${inFlight.length === 1 ? '1 pass' : `${inFlight.length} passes`} still running: ${shown.join(', ')}${more}`];
}

const MAX_RUNNING_SHOWN = 5;

function failureNote(failures: FailedPassLog, failedBefore: number): string {
  const last = failures.last();
  if (last === undefined) return 'no pass of this controller failed';
  const during = failures.count() - failedBefore;
  const head =
    during === 0
      ? `no pass failed during this wait; the last failed pass (${failures.count()} so far):`
      : `${during === 1 ? '1 pass' : `${during} passes`} failed during this wait; the last:`;
  return `${head} ${describeFailedPass(last).replace(/\n/g, '\n  ')}`;
}
