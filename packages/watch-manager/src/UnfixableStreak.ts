import type { GroupVersionResource } from '@protean/core';
import { rootCause, serverOf, unfixableFailureKind, type UnfixableFailureKind } from './unfixableFailure.js';
import { WatchError } from './WatchError.js';

const FIX: Record<UnfixableFailureKind, string> = {
  TlsVerificationFailed: "check the certificate-authority and server name of the KubeConfig's cluster",
  ConnectionRefused: "is the API server running, and is the server URL of the KubeConfig's cluster right?",
};

/**
 * The run of failures of one informer that waiting will not fix (see
 * `unfixableFailureKind`), from the first of them: broken by any other
 * failure. `InformerWatchManager` fails a pending `ensureWatch` once such
 * a run has lasted `failFastMs` over at least two attempts.
 */
export class UnfixableStreak {
  private sinceMs: number | undefined;
  private count = 0;
  private lastKind: UnfixableFailureKind | undefined;
  private lastError: Error | undefined;

  /** Counts `err` into the run if it is unfixable, else ends the run; returns whether the run goes on. */
  observe(err: Error, nowMs: number): boolean {
    const kind = unfixableFailureKind(err);
    if (kind === undefined) {
      this.sinceMs = this.lastKind = this.lastError = undefined;
      this.count = 0;
      return false;
    }
    this.sinceMs ??= nowMs;
    this.count++;
    this.lastKind = kind;
    this.lastError = err;
    return true;
  }

  /** Clock time of the run's first failure; `undefined` when no run is going on. */
  get startedMs(): number | undefined {
    return this.sinceMs;
  }

  /** Failures in the run. */
  get attempts(): number {
    return this.count;
  }

  /** The run's last failure and its kind, when a run is going on. */
  get last(): { readonly kind: UnfixableFailureKind; readonly error: Error } | undefined {
    return this.lastKind === undefined || this.lastError === undefined ? undefined : { kind: this.lastKind, error: this.lastError };
  }

  /** Whether the run has lasted `failFastMs` (at `nowMs`) over at least `minAttempts` failures. */
  due(nowMs: number, failFastMs: number, minAttempts: number): boolean {
    return this.sinceMs !== undefined && this.count >= minAttempts && nowMs - this.sinceMs >= failFastMs;
  }

  /** The error of a run that is due: names the server URL, the attempts and the last failure's root cause (`cause`: that failure). */
  toWatchError(gvr: GroupVersionResource, nowMs: number, last: { readonly kind: UnfixableFailureKind; readonly error: Error }): WatchError {
    const server = serverOf(last.error);
    const at = server === undefined ? 'the API server' : `the API server at ${server}`;
    const what = last.kind === 'TlsVerificationFailed' ? `TLS verification of ${at} failed` : `${at} refused the connection`;
    const elapsedMs = Math.round(nowMs - (this.sinceMs ?? nowMs));
    const detail = `${what} on each of ${this.count} attempts over ${elapsedMs} ms before the informer synced: ${rootCause(last.error).message} (${FIX[last.kind]})`;
    return new WatchError(gvr, last.kind, detail, { cause: last.error, server });
  }
}
