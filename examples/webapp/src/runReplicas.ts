import { CoordinationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { memberLeaseName } from '@protean/sharding';
import { ensureCrd } from './ensureCrd.js';
import { converged } from './expectations.js';
import { WEBAPP } from './kinds.js';
import { LatencyTracker } from './LatencyTracker.js';
import { LiveLog } from './LiveLog.js';
import { pollUntil } from './pollUntil.js';
import {
  DEMO_LEASE_TIMINGS,
  GROUP,
  LEASE_NAMESPACE,
  REPLICA_DEMO_NAMESPACES,
  specOf,
  STARTUP_TIMEOUT_MS,
  WEBAPPS_PER_NAMESPACE,
} from './replicaDemoPlan.js';
import { ReplicaProcess } from './ReplicaProcess.js';
import type { LeaseTimings, ReplicaEvent } from './replicaProtocol.js';
import {
  formatRanges,
  formatReplicasSummary,
  formatShares,
  formatTakeover,
  formatTimings,
  type PhaseResult,
  type ReplicaShare,
  type ReplicasSummary,
  type Takeover,
} from './replicaSummary.js';
import { requestOptions } from './requestOptions.js';
import type { Ref } from './instanceKey.js';
import { ScenarioApi } from './ScenarioApi.js';
import { overlappingPasses } from './passAudit.js';
import { namespacesByReplica, ownersOf, tilesHashSpace } from './splitCoverage.js';

/** Options of {@link runReplicas}. */
export interface ReplicasOptions {
  /** Receives each human-readable line. */
  readonly out: (line: string) => void;
  /** Receives each line of the replicas' own logs (pino JSON); default dropped. */
  readonly replicaLog?: (line: string) => void;
  /** Number of replicas, at least 2. */
  readonly replicas: number;
  /** Bounded wait of each phase. Default 10 000. */
  readonly stepTimeoutMs?: number;
  /** pino level of the replicas' logs. Default `warn`. */
  readonly logLevel?: string;
  /** Default {@link DEMO_LEASE_TIMINGS}. */
  readonly timings?: LeaseTimings;
  /** Aborting it ends the run early (it then fails and cleans up). */
  readonly signal?: AbortSignal;
}

interface Pass {
  readonly replica: string;
  readonly namespace: string;
  readonly name: string;
  readonly outcome: string;
  /** When the demo got the report, since the start of the run. */
  readonly atMs: number;
  /** When the pass ran, in epoch milliseconds (the replica's clock, the machine's). */
  readonly startMs: number;
  readonly endMs: number;
}

/**
 * `pnpm demo -- --replicas N`: an in-memory API server in this process and
 * N replicas of the WebApp controller as child processes, each with its own
 * controller, namespace-sharded informers, queue, shard gate and member
 * Lease. Creates WebApps over 12 namespaces, prints the split, kills one
 * replica with SIGKILL (no lease release), edits the WebApps it owned,
 * prints how the others took them over, checks every WebApp converged, and
 * stops the rest gracefully. Resolves with the summary (`ok` when every
 * phase met its expectations).
 */
export async function runReplicas(options: ReplicasOptions): Promise<ReplicasSummary> {
  if (!Number.isInteger(options.replicas) || options.replicas < 2) {
    throw new RangeError(`replicas: must be an integer of at least 2, got ${options.replicas}`);
  }
  const timings = options.timings ?? DEMO_LEASE_TIMINGS;
  const stepTimeoutMs = options.stepTimeoutMs ?? 10_000;
  const signal = options.signal ?? new AbortController().signal;
  const namespaces = REPLICA_DEMO_NAMESPACES;
  const refs: Ref[] = namespaces.flatMap((namespace) => WEBAPPS_PER_NAMESPACE.map((name) => ({ namespace, name })));
  const log = new LiveLog(options.out);
  const identities = Array.from({ length: options.replicas }, (_, i) => `replica-${i}`);
  const replicas: ReplicaProcess[] = [];
  const passes: Pass[] = [];
  const shareChanges: { replica: string; members: readonly string[]; atMs: number }[] = [];
  const phases: PhaseResult[] = [];
  const edited = new Set<string>();
  const exits: Record<string, string> = {};
  let split: ReplicaShare[] = [];
  let passesOutsideShare = 0;
  let takeover: Takeover | undefined;
  let convergedCount = 0;
  let stopping = false;
  let waits = 0;
  const planned = 6;

  const server = await InMemoryApiServer.start();
  const kubeConfig = server.kubeConfig();
  const api = new ScenarioApi(kubeConfig, new LiveLog(() => {}), new LatencyTracker(), signal);
  const byReplica = (rs: readonly ReplicaProcess[]): Map<string, ReplicaProcess['ranges']> =>
    new Map(rs.map((r) => [r.identity, r.ranges]));
  const shares = (rs: readonly ReplicaProcess[], since: number): ReplicaShare[] => {
    const owned = namespacesByReplica(namespaces, byReplica(rs));
    return rs.map((r) => {
      const mine = passes.filter((p) => p.replica === r.identity && p.atMs >= since);
      const ns = owned.get(r.identity) ?? [];
      return {
        identity: r.identity,
        pid: r.pid,
        ranges: r.ranges,
        namespaces: ns,
        webApps: refs.filter((ref) => ns.includes(ref.namespace)).length,
        reconciled: new Set(mine.filter((p) => p.outcome === 'reconciled').map((p) => `${p.namespace}/${p.name}`)).size,
        passes: mine.length,
      };
    });
  };
  const onEvent = (replica: ReplicaProcess, event: ReplicaEvent): void => {
    const atMs = log.elapsedMs();
    if (event.type === 'reconciled') passes.push({ replica: replica.identity, ...event, atMs });
    else if (event.type === 'started')
      log.line(`${replica.identity}: shard filter ${event.mode} (${event.reason}); ${event.keys.length} namespaces to balance`);
    else if (event.type === 'ranges') {
      shareChanges.push({ replica: replica.identity, members: event.members, atMs });
      if (stopping) return log.line(`${replica.identity}: stopping: passes drained, member lease released, owns nothing`);
      const ns = namespaces.filter((n) => ownersOf(n, new Map([[replica.identity, event.ranges]])).length === 1);
      log.line(
        `${replica.identity}: owns ${formatRanges(event.ranges)}, ${ns.length} namespaces; members ${event.members.join(', ') || 'none'}`,
      );
    } else if (event.type === 'transition') {
      if (event.kind === 'waiting') {
        waits++;
        log.line(
          `${replica.identity}: waits for ${event.holders.join(', ')} to let go of ${formatRanges(event.ranges)} (exclusive handoff)`,
        );
      } else if (event.kind === 'lost') log.line(`${replica.identity}: lost ${formatRanges(event.ranges)} (renew deadline passed)`);
    } else if (event.type === 'failed') log.line(`${replica.identity}: FAILED: ${event.message}`);
  };
  const agreed = (rs: readonly ReplicaProcess[]): true | string => {
    const want = rs.map((r) => r.identity).join(',');
    const off = rs.find((r) => !r.ready || r.members.join(',') !== want);
    if (off !== undefined) return `${off.identity} sees members [${off.members.join(', ')}]${off.ready ? '' : ', not ready'}`;
    return tilesHashSpace(byReplica(rs));
  };
  const allConverged = (which: readonly Ref[]): (() => Promise<true | string>) => {
    const pending = new Map(which.map((ref) => [`${ref.namespace}/${ref.name}`, ref]));
    return async () => {
      for (const [key, ref] of pending) {
        const seen = await converged(api, WEBAPP, ref, { spec: specOf(ref, edited.has(key)), count: 1 }).check();
        if (seen !== true) return `${pending.size} not converged yet, e.g. ${key}: ${seen}`;
        pending.delete(key);
      }
      return true;
    };
  };
  const wait = (what: string, check: () => Promise<true | string> | true | string, timeoutMs = stepTimeoutMs): Promise<void> =>
    pollUntil(what, check, { timeoutMs, intervalMs: 20, signal });
  const phase = async (name: string, run: () => Promise<void>): Promise<boolean> => {
    log.line(`--- phase ${phases.length + 1}/${planned}: ${name}`);
    const startedMs = performance.now();
    let failure: string | undefined;
    try {
      await run();
    } catch (err) {
      failure = err instanceof Error ? err.message : String(err);
      log.line(`    FAILED: ${failure}`);
    }
    phases.push({
      name,
      ok: failure === undefined,
      elapsedMs: performance.now() - startedMs,
      ...(failure === undefined ? {} : { failure }),
    });
    return failure === undefined;
  };

  let survivors: ReplicaProcess[] = [];
  try {
    log.line(`in-memory Kubernetes API server listening at ${server.url}`);
    log.line(`${formatTimings(timings)} (short, to keep the demo brisk; the defaults are 15 s, 10 s, 2 s)`);
    let splitAt = 0;
    let ok = await phase(`define WebApp, create ${namespaces.length} namespaces`, async () => {
      const outcome = await ensureCrd(kubeConfig, WEBAPP, { signal, timeoutMs: stepTimeoutMs });
      const core = kubeConfig.makeApiClient(CoreV1Api);
      for (const name of namespaces) await core.createNamespace({ body: { metadata: { name } } }, requestOptions(signal));
      log.line(`CRD webapps.${WEBAPP.gvr.group} ${outcome}; namespaces ${namespaces.join(', ')}`);
    });
    ok &&= await phase(`start ${options.replicas} replicas and agree on the split`, async () => {
      for (const identity of identities) {
        const config = { identity, kubeconfig: kubeConfig.exportConfig(), leaseNamespace: LEASE_NAMESPACE, group: GROUP, timings };
        const replica = new ReplicaProcess({ ...config, logLevel: options.logLevel ?? 'warn' }, onEvent, options.replicaLog ?? (() => {}));
        replicas.push(replica);
        log.line(`${identity}: started as pid ${replica.pid}, member lease ${LEASE_NAMESPACE}/${memberLeaseName(GROUP, identity)}`);
      }
      await wait(
        `all ${options.replicas} replicas agree on the split`,
        () => {
          const failed = replicas.find((r) => r.failure !== undefined || !r.alive());
          if (failed !== undefined) throw new Error(`${failed.identity} ended: ${failed.failure ?? 'exited'}`);
          return agreed(replicas);
        },
        Math.max(stepTimeoutMs, STARTUP_TIMEOUT_MS),
      );
      splitAt = log.elapsedMs();
      log.line(`    ok: the ${options.replicas} shares tile the hash space; every namespace has exactly one owner`);
    });
    ok &&= await phase(`create ${refs.length} WebApps, ${WEBAPPS_PER_NAMESPACE.length} per namespace`, async () => {
      for (const ref of refs) await api.createInstance(WEBAPP, ref, specOf(ref, false));
      log.line(`created ${refs.length} WebApps (${WEBAPPS_PER_NAMESPACE.join(', ')} in each namespace)`);
      await wait(`all ${refs.length} WebApps converged`, allConverged(refs));
      log.line(`    ok: all ${refs.length} WebApps converged`);
      split = shares(replicas, splitAt);
      const owner = new Map(split.flatMap((s) => s.namespaces.map((ns) => [ns, s.identity] as const)));
      passesOutsideShare = passes.filter((p) => p.atMs >= splitAt && owner.get(p.namespace) !== p.replica).length;
      if (passesOutsideShare > 0) throw new Error(`${passesOutsideShare} passes by a replica outside its share`);
      for (const line of formatShares(`Split over ${options.replicas} replicas`, split)) options.out(line);
    });
    const victim = replicas[Math.floor(options.replicas / 2)];
    let killedAt = 0;
    ok &&= await phase(`kill -9 ${victim?.identity ?? '?'} and edit the WebApps it owned`, async () => {
      if (victim === undefined) throw new Error('no replica to kill');
      survivors = replicas.filter((r) => r !== victim);
      killedAt = log.elapsedMs();
      const exit = await victim.kill();
      exits[victim.identity] = `killed (${exit.signal ?? exit.code})`;
      const lease = await kubeConfig
        .makeApiClient(CoordinationV1Api)
        .readNamespacedLease({ namespace: LEASE_NAMESPACE, name: memberLeaseName(GROUP, victim.identity) }, requestOptions(signal));
      const holder = lease.spec?.holderIdentity ?? undefined;
      log.line(`${victim.identity} (pid ${victim.pid}) killed with SIGKILL; its member lease still names ${holder ?? 'nobody'}`);
      const orphans = refs.filter((ref) => split.find((s) => s.identity === victim.identity)?.namespaces.includes(ref.namespace));
      for (const ref of orphans) {
        edited.add(`${ref.namespace}/${ref.name}`);
        await api.patchSpec(WEBAPP, ref, specOf(ref, true));
      }
      log.line(`edited the spec of its ${orphans.length} WebApps: nobody reconciles them until the others take its share over`);
      takeover = {
        victim: victim.identity,
        pid: victim.pid,
        killedAtMs: killedAt,
        exitSignal: exit.signal,
        leaseHolderAfterKill: holder,
        countedOut: [],
        moves: [],
        orphans: orphans.length,
        reconciledAgainMs: undefined,
        convergedMs: undefined,
        after: [],
      };
    });
    ok &&= await phase('take the share of the killed replica over', async () => {
      const t = takeover!;
      await wait(`the ${survivors.length} survivors agree on a split without ${t.victim}`, () => agreed(survivors));
      const before = new Map(split.flatMap((s) => s.namespaces.map((ns) => [ns, s.identity] as const)));
      const after = namespacesByReplica(namespaces, byReplica(survivors));
      const moves = [...after].flatMap(([to, nss]) =>
        nss.filter((ns) => before.get(ns) !== to).map((ns) => ({ namespace: ns, from: before.get(ns)!, to })),
      );
      const moved = refs.filter((ref) => moves.some((m) => m.namespace === ref.namespace));
      const firstPass = (ref: Ref): Pass | undefined =>
        passes.find((p) => p.atMs >= killedAt && p.outcome === 'reconciled' && p.namespace === ref.namespace && p.name === ref.name &&
          moves.some((m) => m.namespace === ref.namespace && m.to === p.replica)); // prettier-ignore
      await wait(`every WebApp that moved reconciled by its new owner`, () => {
        const missing = moved.filter((ref) => firstPass(ref) === undefined);
        return missing.length === 0 || `${missing.length} not yet, e.g. ${missing[0]!.namespace}/${missing[0]!.name}`;
      });
      const orphans = refs.filter((ref) => edited.has(`${ref.namespace}/${ref.name}`));
      await wait('every orphaned WebApp converged on its edited spec', allConverged(orphans));
      const convergedMs = log.elapsedMs() - killedAt;
      const countedOut = survivors.map((s) => {
        const at = shareChanges.find((c) => c.replica === s.identity && c.atMs >= killedAt && !c.members.includes(t.victim))?.atMs;
        return { identity: s.identity, afterMs: at === undefined ? undefined : at - killedAt };
      });
      const lastFirstPass = Math.max(...orphans.map((ref) => firstPass(ref)?.atMs ?? Number.NaN));
      const reconciledAgainMs = Number.isFinite(lastFirstPass) ? lastFirstPass - killedAt : undefined;
      takeover = { ...t, countedOut, moves, reconciledAgainMs, convergedMs, after: shares(survivors, killedAt) };
      for (const line of formatTakeover(takeover, timings)) options.out(line);
    });
    ok &&= await phase(`check every WebApp converged, no pass overlapped`, async () => {
      await wait(`all ${refs.length} WebApps converged`, allConverged(refs));
      convergedCount = refs.length;
      log.line(`    ok: all ${refs.length} WebApps converged`);
      const [first] = overlappingPasses(passes);
      if (first !== undefined) {
        const [a, b] = first;
        throw new Error(`${a.replica} and ${b.replica} reconciled ${a.namespace}/${a.name} at the same time`);
      }
      log.line(`    ok: no two replicas ever reconciled one WebApp at the same time (${passes.length} passes audited)`);
    });
    if (!ok && convergedCount === 0) convergedCount = await countConverged(refs, (ref) => allConverged([ref])());
  } finally {
    log.line('shutting down: replicas (gracefully), API server');
    stopping = true;
    const rest = replicas.filter((r) => exits[r.identity] === undefined);
    const ended = await Promise.all(rest.map((r) => r.stop(15_000)));
    rest.forEach((r, i) => (exits[r.identity] = `exit ${ended[i]!.code ?? ended[i]!.signal}`));
    await server.stop();
  }
  const overlaps = overlappingPasses(passes).length;
  const summary: ReplicasSummary = {
    ok: phases.length === planned && phases.every((p) => p.ok) && overlaps === 0 && survivors.every((r) => exits[r.identity] === 'exit 0'),
    replicas: options.replicas,
    timings,
    mode: replicas[0]?.started?.mode,
    namespaces,
    webApps: refs.length,
    phases,
    plannedPhases: planned,
    split,
    passesOutsideShare,
    overlaps,
    waits,
    takeover,
    converged: convergedCount,
    totalPasses: passes.length,
    exits,
    durationMs: log.elapsedMs(),
  };
  for (const line of formatReplicasSummary(summary)) options.out(line);
  return summary;
}

async function countConverged(refs: readonly Ref[], check: (ref: Ref) => Promise<true | string>): Promise<number> {
  let n = 0;
  for (const ref of refs) if ((await check(ref).catch(() => 'error')) === true) n++;
  return n;
}
