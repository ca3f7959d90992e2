import {
  ParentSyncError,
  realClock,
  sleepOrWake,
  type GroupVersionResource,
  type Handler,
  type Logger,
  type RegisterOptions,
} from '@protean/core';

/** The longest wait between two tries of {@link registerWhenAllowed}. */
const MAX_RETRY_MS = 30_000;

/**
 * Registers the parent, and keeps trying while its informer cannot sync
 * (its CRD is not installed yet, or the Role does not grant list and watch):
 * the Pod stays up and not ready, `/readyz` names what is refused, and a
 * fixed Role or an installed CRD is picked up without a restart. Says so
 * once at warn; resolves when registered, or when `signal` aborts.
 */
export async function registerWhenAllowed<O extends RegisterOptions>(
  controller: { register(parent: GroupVersionResource, handler: Handler, options?: O): Promise<void> },
  parent: GroupVersionResource,
  handler: Handler,
  options: { readonly signal: AbortSignal; readonly logger: Logger; readonly register?: O },
): Promise<void> {
  for (let attempt = 0; !options.signal.aborted; attempt++) {
    try {
      await controller.register(parent, handler, options.register);
      if (attempt > 0) options.logger.info({ attempts: attempt + 1 }, 'registered the parent');
      return;
    } catch (err) {
      if (!(err instanceof ParentSyncError)) throw err;
      const retryInMs = Math.min(MAX_RETRY_MS, 1_000 * 2 ** attempt);
      if (attempt === 0) options.logger.warn({ err: err.message }, 'cannot register the parent yet; retrying until it can');
      else options.logger.debug({ err: err.message, retryInMs }, 'registering the parent failed again');
      await sleepOrWake(realClock, retryInMs, options.signal).done;
    }
  }
}
