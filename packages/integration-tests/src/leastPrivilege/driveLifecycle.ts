// Runs a controller's replicas through a life cycle while watching their
// /readyz: either every step converges (and nothing is denied for one more
// resync period), or a permission denial shows up in a replica's /readyz
// (the outcome the least-privilege test wants for a removed rule), or a
// step stalls past its bound, which fails the test by name.
import type { ControllerProcess } from './controllerProcess.js';

const POLL_MS = 100;

/** One step of a life cycle: a change the test makes and what must hold once the controller caught up. */
export interface LifecycleStep {
  readonly name: string;
  act(): Promise<void>;
  /** What the controller has not done yet (empty once it has). */
  pending(): Promise<string[]>;
}

/** What one run of the life cycle came to. */
export type LifecycleOutcome =
  | { kind: 'converged'; stepMs: Record<string, number> }
  | {
      kind: 'denied';
      step: string;
      replica: ControllerProcess;
      /** The verbose /readyz body that named the denial. */
      readyz: string;
      /** From the step's change (the request that needed the permission came after it) to /readyz failing. */
      sinceStepMs: number;
      /** From the replica's start to /readyz failing. */
      sinceStartMs: number;
    }
  | { kind: 'exited'; step: string; replica: ControllerProcess; sinceStepMs: number };

/** A step the controller neither completed nor reported a denial for within its bound: a hang or a silent stall. */
export class LifecycleStallError extends Error {
  override readonly name = 'LifecycleStallError';
  constructor(
    readonly step: string,
    readonly boundMs: number,
    pending: readonly string[],
    readyz: string,
    tail: string,
  ) {
    super(
      `after "${step}" the controller neither converged nor reported a denial within ${boundMs} ms; still waiting for: ` +
        `${pending.join('; ')}\n--- /readyz?verbose ---\n${readyz}\n--- controller output ---\n${tail}`,
    );
  }
}

/**
 * Whether a verbose /readyz answer reports a permission the server refused
 * (and not only informers that have not synced yet): a 503 with a failing
 * `permissions` check line.
 */
export function permissionDenialIn(readyz: { status: number; text: string } | undefined): string | undefined {
  if (readyz === undefined || readyz.status !== 503) return undefined;
  return /^\[-\]permissions/m.test(readyz.text) ? readyz.text : undefined;
}

/** Options of {@link driveLifecycle}. */
export interface DriveOptions {
  /** The replicas to watch; a replica stopped by a step is dropped from it by that step. */
  readonly replicas: () => readonly ControllerProcess[];
  readonly steps: readonly LifecycleStep[];
  /** Bound of each step, and how long the replicas are watched after the last one: the controller's resync period. */
  readonly boundMs: number;
}

/**
 * Drives `steps` in order, polling every replica's `/readyz?verbose` and
 * each step's `pending()`; after the last step, keeps watching /readyz for
 * `boundMs` more, so periodic requests (lease renewals, resyncs) are made.
 */
export async function driveLifecycle(options: DriveOptions): Promise<LifecycleOutcome> {
  const stepMs: Record<string, number> = {};
  const watch = async (step: string, began: number): Promise<LifecycleOutcome | undefined> => {
    for (const replica of options.replicas()) {
      if (!replica.running) return { kind: 'exited', step, replica, sinceStepMs: performance.now() - began };
      const denial = permissionDenialIn(await replica.get('/readyz?verbose'));
      if (denial !== undefined) {
        const now = performance.now();
        return { kind: 'denied', step, replica, readyz: denial, sinceStepMs: now - began, sinceStartMs: now - replica.startedAt };
      }
    }
    return undefined;
  };
  for (const step of options.steps) {
    const began = performance.now();
    await step.act();
    for (;;) {
      const seen = await watch(step.name, began);
      if (seen !== undefined) return seen;
      const pending = await step.pending();
      if (pending.length === 0) break;
      if (performance.now() - began > options.boundMs) {
        const replicas = options.replicas();
        const readyz = await Promise.all(
          replicas.map(async (r) => `${r.name}: ${(await r.get('/readyz?verbose'))?.text ?? '(no answer)'}`),
        );
        throw new LifecycleStallError(
          step.name,
          options.boundMs,
          pending,
          readyz.join('\n'),
          replicas.map((r) => `${r.name}:\n${r.tail()}`).join('\n'),
        );
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    stepMs[step.name] = performance.now() - began;
  }
  const quietFrom = performance.now();
  while (performance.now() - quietFrom < options.boundMs) {
    const seen = await watch('(after the last step)', quietFrom);
    if (seen !== undefined) return seen;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return { kind: 'converged', stepMs };
}
