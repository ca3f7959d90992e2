// One replica of the freeze test (freeze.real.test.ts), run as a child
// process from dist/ after `tsc -b`, which the test stops with SIGSTOP for
// longer than its lease and wakes with SIGCONT. REPLICA_MODE `sharded`
// composes it as the sharding README says (`shardingModule`: membership,
// sharded informer source and a gate fenced by the membership's validity,
// the namespace as the shard key); `leader` composes it with a
// LeaderElector. REPLICA_GATE=hand-built-unfenced builds a gate the way the
// README did before fencing was required (`new ShardGate({ key })`), which
// must refuse to start.
// Short lease timings come from the environment.
//
// The handler reads its parent's `spec.touch` from the server, waits 100 to
// 300 ms without looking at `ctx.signal` (the window between a read and a
// write in which a freeze leaves a pass half done), then merge-patches
// the child ConfigMap's `data.value` with what it read, through
// `@protean/client` with the pass's signal and the user agent
// `freeze/<identity>` (so kube-apiserver's audit log names the writer).
// It appends to the shared audit file every pass start, every write
// attempt and its outcome, every share applied, and the lease's validity
// intervals as the replica's own LeaseValidity records them (its
// `renewed`/`end` calls, on the monotonic clock, as epoch ms).
import 'reflect-metadata';
import { closeSync, openSync, writeSync } from 'node:fs';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '@protean/client';
import { coordinatorModule } from '@protean/coordinator';
import { coreModule, createLogger, DynamicController, TOKENS, type Handler, type Leadership } from '@protean/core';
import { LeaderElector, type LeaseValidity } from '@protean/leader-election';
import { queueModule } from '@protean/queue';
import { detectShardSelectorSupport, fnv1a64, ShardGate, shardingModule, type ShardReplica } from '@protean/sharding';
import { watchManagerModule } from '@protean/watch-manager';
import { Container } from 'inversify';
import { CHILD_SUFFIX, CONFIGMAPS, PARENTS } from '../sharding/shardAudit.js';
import type { FreezeAuditLine } from './freezeAudit.js';

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`freezeReplica: environment variable ${name} is required`);
  return value;
}

function requiredMs(name: string): number {
  const n = Number(required(name));
  if (!Number.isInteger(n) || n <= 0)
    throw new Error(`freezeReplica: ${name} must be a positive integer of milliseconds, got ${process.env[name]}`);
  return n;
}

/** Epoch ms comparable across the processes of one machine (and with kube-apiserver's wall clock). */
const epoch = (monotonicMs: number): number => performance.timeOrigin + monotonicMs;

let admittedAt: number | undefined;
let clearing = false;

/**
 * Records `validity`'s intervals as the replica itself sees them: valid
 * from the moment a renewal (or acquisition) made it valid, until its
 * deadline passed or it was ended, whichever came first.
 */
function traceValidity(validity: LeaseValidity, record: (event: 'valid-from' | 'valid-until', at: number) => void): void {
  if (validity.isValid()) record('valid-from', epoch(performance.now()));
  const isValid = validity.isValid.bind(validity);
  // The instant of the last "valid now?" answered yes, kept until the synchronous stretch that asked ends: the
  // worker checks validity and calls the handler in one stretch, so the handler reads its own admission here. A
  // freeze landing between the check and the handler's first line moves the line, not the admission.
  validity.isValid = (...args: [number?]): boolean => {
    const at = performance.now();
    const valid = isValid(...args);
    if (valid && args[0] === undefined) {
      admittedAt = epoch(at);
      if (!clearing) {
        clearing = true;
        queueMicrotask(() => {
          admittedAt = undefined;
          clearing = false;
        });
      }
    }
    return valid;
  };
  const renewed = validity.renewed.bind(validity);
  const end = validity.end.bind(validity);
  validity.renewed = (sentAtMs: number): void => {
    const now = performance.now();
    const wasValid = validity.isValid(now);
    const until = validity.validUntilMs();
    renewed(sentAtMs);
    if (wasValid || !validity.isValid(now)) return;
    if (Number.isFinite(until)) record('valid-until', epoch(until));
    record('valid-from', epoch(now));
  };
  validity.end = (): void => {
    const until = validity.validUntilMs();
    if (Number.isFinite(until)) record('valid-until', epoch(Math.min(until, performance.now())));
    end();
  };
}

async function main(): Promise<void> {
  const identity = required('REPLICA_IDENTITY');
  const mode = required('REPLICA_MODE');
  if (mode !== 'sharded' && mode !== 'leader') throw new Error(`freezeReplica: REPLICA_MODE must be sharded or leader, got ${mode}`);
  const auditFile = required('REPLICA_AUDIT');
  const leaseNamespace = required('REPLICA_LEASE_NAMESPACE');
  const timings = {
    leaseDurationMs: requiredMs('REPLICA_LEASE_DURATION_MS'),
    renewDeadlineMs: requiredMs('REPLICA_RENEW_DEADLINE_MS'),
    retryPeriodMs: requiredMs('REPLICA_RETRY_PERIOD_MS'),
  };
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(required('PROTEAN_KUBECONFIG'));
  const logger = createLogger({ level: 'info', base: { replica: identity } });
  const client = new KubeClient({ kubeConfig, userAgent: `freeze/${identity}` });

  const audit = openSync(auditFile, 'a');
  // One write per line on an O_APPEND descriptor: lines of several processes never interleave.
  const record = (line: FreezeAuditLine): void => void writeSync(audit, `${JSON.stringify(line)}\n`);
  const now = (): number => epoch(performance.now());
  const traced = (event: 'valid-from' | 'valid-until', at: number): void => record({ replica: identity, event, at });

  const container = new Container();
  container.load(
    coreModule({ workers: 4, resyncPeriodMs: 0, minRetryDelayMs: 20, maxRetryDelayMs: 1_000, rateLimit: 1_000, burstLimit: 1_000 }, logger),
    queueModule(),
    watchManagerModule({ kubeConfig, backoff: { initialMs: 100, maxMs: 1_000 } }),
    coordinatorModule(),
  );

  if (process.env['REPLICA_GATE'] === 'hand-built-unfenced') {
    // As the README showed before fencing was required: refused with FencingRequiredError, nothing starts.
    new ShardGate({ key: 'namespace' } as never);
  }
  if (mode === 'sharded') {
    const { mode: selectorMode } = await detectShardSelectorSupport(kubeConfig, { logger });
    const namespaces = (await kubeConfig.makeApiClient(CoreV1Api).listNamespace()).items.map((n) => n.metadata!.name!).sort();
    container.load(
      shardingModule({
        kubeConfig,
        key: 'namespace',
        mode: selectorMode,
        namespace: leaseNamespace,
        group: 'freeze',
        identity,
        keys: () => namespaces,
        onShareChange: (change) => record({ replica: identity, event: 'share', at: now(), members: [...change.members] }),
        ...timings,
      }),
    );
    traceValidity((container.get(TOKENS.passGate) as ShardReplica).membership.validity, traced);
  } else {
    const elector = new LeaderElector({ kubeConfig, namespace: leaseNamespace, leaseName: 'freeze', identity, logger, ...timings });
    let tracing = false;
    const leadership: Leadership = {
      identity,
      run: (signal, lead) =>
        elector.run(signal, (term, validity) => {
          if (!tracing) traceValidity(validity as LeaseValidity, traced);
          tracing = true;
          return lead(term, validity);
        }),
    };
    container.bind(TOKENS.leadership).toConstantValue(leadership);
  }
  const controller = container.get(DynamicController);

  const handler: Handler = async (req, ctx) => {
    const instance = `${req.namespace}/${req.name}`;
    // Logged first, synchronously where the pass was admitted (the read below may be cut by a freeze), with the
    // instant validity was checked in that stretch (null: the pass started without a check).
    record({ replica: identity, event: 'pass', at: now(), admittedAt: admittedAt ?? null, instance });
    const parent = await client.get<{ metadata?: object; spec?: { touch?: number } }>(PARENTS, req, { signal: ctx.signal });
    const value = Number(parent.spec?.touch ?? 0);
    const ms = 100 + Number((fnv1a64(`${instance}@${value}`) >> 8n) % 201n);
    await new Promise((resolve) => setTimeout(resolve, ms));
    const key = { namespace: req.namespace, name: `${req.name}${CHILD_SUFFIX}` };
    // The instant the write is attempted (the client checks validity right after, before sending).
    record({ replica: identity, event: 'write', at: now(), instance, value, outcome: 'attempt' });
    try {
      await client.patch(CONFIGMAPS, key, { data: { value: String(value), writer: identity } }, { signal: ctx.signal });
      record({ replica: identity, event: 'write', at: now(), instance, value, outcome: 'sent' });
    } catch (err) {
      const name = err instanceof Error ? err.name : 'unknown';
      record({ replica: identity, event: 'write', at: now(), instance, value, outcome: name === 'LeaseExpiredError' ? 'refused' : name });
      if (!ctx.signal.aborted) throw err;
    }
  };

  const abort = new AbortController();
  process.once('SIGTERM', () => abort.abort(new Error('SIGTERM')));
  // Sharded: the controller runs the membership and wraps the handler with the gate (TOKENS.passGate).
  const running = controller.start(abort.signal);
  await controller.register(PARENTS, handler);
  logger.info({ mode }, 'replica registered its parents');

  await running;
  closeSync(audit);
  logger.info('replica stopped');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
