/**
 * Thrown by `startKubeApiServer` and `KubeApiServer.restart` when etcd or
 * kube-apiserver does not become ready: the message says which process,
 * why (exit or timeout) and ends with the processes' last log lines.
 *
 * Easy to get wrong: a start timeout on a busy 2-core machine is usually
 * load, not a bug; `startTimeoutMs` raises the budget.
 */
export class KubeApiServerStartError extends Error {
  override readonly name = 'KubeApiServerStartError';

  constructor(message: string, logs: string, options?: { cause?: unknown }) {
    super(`${message}\n--- last log lines ---\n${logs}`, options);
  }
}
