import { errorCauses } from '../causeChain.js';
import { isNotFound } from '../isNotFound.js';
import { KindUnavailableError } from '../KindUnavailableError.js';
import { NoRequeue, RequeueNeeded, RequeueNeededAfter, RequeueWhen } from '../requeue.js';

/** What the worker does with an item whose handler failed with a given error. */
export type HandlerErrorClass =
  | { readonly kind: 'no_requeue' }
  | { readonly kind: 'requeue' }
  | { readonly kind: 'requeue_after'; readonly delayMs: number }
  | { readonly kind: 'waiting'; readonly refusal: KindUnavailableError }
  | { readonly kind: 'requeue_when'; readonly ready: (signal: AbortSignal) => Promise<void> }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'error' };

/**
 * Classifies a handler failure the way the seed system's worker does:
 * requeue signals first (also when wrapped as the `cause` of another error,
 * like Go's `errors.As`), then a kind that cannot be watched now
 * ({@link KindUnavailableError}: waiting, not failing), then a Kubernetes
 * NotFound, else a plain error.
 *
 * Easy to get wrong: `RequeueNeededAfter` and `RequeueWhen` extend
 * `RequeueNeeded`, so they must be tested first.
 */
export function classifyHandlerError(err: unknown): HandlerErrorClass {
  let refusal: KindUnavailableError | undefined;
  for (const e of errorCauses(err)) {
    if (e instanceof NoRequeue) return { kind: 'no_requeue' };
    if (e instanceof RequeueWhen) return { kind: 'requeue_when', ready: e.ready };
    if (e instanceof RequeueNeededAfter) return { kind: 'requeue_after', delayMs: e.delayMs };
    if (e instanceof RequeueNeeded) return { kind: 'requeue' };
    if (e instanceof KindUnavailableError) refusal ??= e;
  }
  // kro-diff: a kind that is not served or not allowed (its 404 or 403 in the cause chain) parks the instance on the
  // kind; kro counts it as a handler error, and its 404 as "instance gone".
  if (refusal !== undefined) return { kind: 'waiting', refusal };
  return isNotFound(err) ? { kind: 'not_found' } : { kind: 'error' };
}
