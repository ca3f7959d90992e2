// Entry point of one replica process of `pnpm demo -- --replicas N`, forked by
// runReplicas with an IPC channel. It reports over the channel, logs pino JSON
// on stderr, and stops gracefully on a 'stop' command, on SIGTERM/SIGINT, or
// when the parent goes away (the channel disconnects).
import 'reflect-metadata';
import { pino } from 'pino';
import { REPLICA_CONFIG_ENV, type ReplicaCommand, type ReplicaConfig, type ReplicaEvent } from './replicaProtocol.js';
import { runReplica } from './runReplica.js';

const raw = process.env[REPLICA_CONFIG_ENV];
if (raw === undefined || process.send === undefined) {
  process.stderr.write(`replicaMain: start it through runReplicas (needs ${REPLICA_CONFIG_ENV} and an IPC channel)\n`);
  process.exit(2);
}
const config = JSON.parse(raw) as ReplicaConfig;
const logger = pino({ level: config.logLevel, base: { replica: config.identity } }, pino.destination({ dest: 2, sync: true }));
const stop = new AbortController();
const send = (event: ReplicaEvent): void => {
  if (process.connected) process.send?.(event);
};
process.on('message', (command: ReplicaCommand) => {
  if (command.type === 'stop') stop.abort(new Error('stopped by the parent'));
});
process.on('disconnect', () => stop.abort(new Error('the parent went away')));
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => stop.abort(new Error(`received ${signal}`)));

let code = 0;
try {
  await runReplica({ config, logger, send, stop: stop.signal });
} catch (err) {
  // Stopped during setup is a normal stop, not a failure.
  if (!stop.signal.aborted) {
    send({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
    code = 1;
  }
}
process.disconnect?.();
process.exit(code);
