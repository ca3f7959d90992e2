/**
 * A request of a {@link KubeClient} that was closed: one still waiting for
 * its next attempt when `close()` was called, or one made after it. A
 * closed client retries nothing, so a process (or a Jest worker) it belongs
 * to can exit.
 */
export class KubeClientClosedError extends Error {
  override readonly name = 'KubeClientClosedError';

  constructor() {
    super('the KubeClient was closed: the request was not (or no longer) retried');
  }
}
