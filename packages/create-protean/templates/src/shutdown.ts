/**
 * An AbortController aborted on the first SIGTERM or SIGINT (Kubernetes
 * sends SIGTERM on a rollout or scale-down, then SIGKILL after the Pod's
 * terminationGracePeriodSeconds); abort it yourself to stop on an error.
 * A second signal exits at once.
 */
export function stopOnSignals(log: (message: string) => void): AbortController {
  const stop = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stop.signal.aborted) {
      log(`received ${signal} again: exiting without a graceful shutdown`);
      process.exit(signal === 'SIGTERM' ? 143 : 130);
    }
    log(`received ${signal}: shutting down gracefully`);
    stop.abort(new Error(`received ${signal}`));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return stop;
}
