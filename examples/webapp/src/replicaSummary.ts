import { formatHashBound, type HashRange } from '@protean/sharding';
import type { LeaseTimings } from './replicaProtocol.js';

/** One replica's share and what it reconciled in it. */
export interface ReplicaShare {
  readonly identity: string;
  readonly pid: number;
  readonly ranges: readonly HashRange[];
  /** The namespaces in its ranges. */
  readonly namespaces: readonly string[];
  /** WebApps in those namespaces. */
  readonly webApps: number;
  /** Distinct WebApps it reconciled (a pass that ended `reconciled`). */
  readonly reconciled: number;
  /** Handler passes it ran, of any outcome. */
  readonly passes: number;
}

/** A namespace whose owner changed. */
export interface NamespaceMove {
  readonly namespace: string;
  readonly from: string;
  readonly to: string;
}

/** The crash of one replica and how the others took its share over. */
export interface Takeover {
  readonly victim: string;
  readonly pid: number;
  /** Since the start of the run. */
  readonly killedAtMs: number;
  /** How the process ended (`SIGKILL`). */
  readonly exitSignal: string | null;
  /** The holder its member lease named right after the crash: the victim's own identity, as nothing released it. */
  readonly leaseHolderAfterKill: string | undefined;
  /** Per survivor: how long after the kill it counted the victim out (undefined if it never did). */
  readonly countedOut: readonly { readonly identity: string; readonly afterMs: number | undefined }[];
  readonly moves: readonly NamespaceMove[];
  /** WebApps in the victim's namespaces; their specs were edited right after the kill. */
  readonly orphans: number;
  /** From the kill to the first pass of the last orphan by its new owner. */
  readonly reconciledAgainMs: number | undefined;
  /** From the kill until every orphan was read back converged on its edited spec. */
  readonly convergedMs: number | undefined;
  /** The shares after the takeover. */
  readonly after: readonly ReplicaShare[];
}

/** One phase of the replica demo. */
export interface PhaseResult {
  readonly name: string;
  readonly ok: boolean;
  readonly elapsedMs: number;
  readonly failure?: string;
}

/** What `pnpm demo -- --replicas N` did; `ok` when every phase met its expectations. */
export interface ReplicasSummary {
  readonly ok: boolean;
  readonly replicas: number;
  readonly timings: LeaseTimings;
  /** The shard filter mode the replicas detected (`client` on the in-memory server). */
  readonly mode: string | undefined;
  readonly namespaces: readonly string[];
  readonly webApps: number;
  readonly phases: readonly PhaseResult[];
  readonly plannedPhases: number;
  /** The split once every replica agreed and every WebApp converged; empty if it never came to that. */
  readonly split: readonly ReplicaShare[];
  /** Passes of the split phase by a replica that did not own the namespace in the split. */
  readonly passesOutsideShare: number;
  /** Pairs of passes of one WebApp by two replicas at the same time, over the whole run (exclusive handoff: 0). */
  readonly overlaps: number;
  /** Times a replica waited for another member to let go of a range assigned to it. */
  readonly waits: number;
  readonly takeover: Takeover | undefined;
  /** WebApps read back converged at the final check. */
  readonly converged: number;
  readonly totalPasses: number;
  /** How the replicas still running at the end exited, by identity. */
  readonly exits: Readonly<Record<string, string>>;
  readonly durationMs: number;
}

const seconds = (ms: number | undefined): string => (ms === undefined ? 'never' : `${(ms / 1000).toFixed(2)} s`);
const range = (r: HashRange): string => `[${formatHashBound(r.start)}, ${formatHashBound(r.end)})`;

/** A hash range list as printed: `[0x..., 0x...)`, `none` when empty. */
export function formatRanges(ranges: readonly HashRange[]): string {
  return ranges.length === 0 ? 'none' : ranges.map(range).join(' + ');
}

/** The lease timings as printed. */
export function formatTimings(t: LeaseTimings): string {
  return `lease duration ${seconds(t.leaseDurationMs)}, renew deadline ${seconds(t.renewDeadlineMs)}, retry period ${seconds(t.retryPeriodMs)}`;
}

/** The split block: per replica its range, namespaces and what it reconciled. */
export function formatShares(title: string, shares: readonly ReplicaShare[], since = ''): string[] {
  const lines = ['', `=== ${title} ===`];
  for (const s of shares) {
    lines.push(`${s.identity} (pid ${s.pid})  hash range ${formatRanges(s.ranges)}`);
    lines.push(`    namespaces (${s.namespaces.length}): ${s.namespaces.join(', ') || '-'}`);
    lines.push(`    WebApps: ${s.webApps} in its share, ${s.reconciled} reconciled${since} (${s.passes} passes)`);
  }
  return lines;
}

/** The takeover block. */
export function formatTakeover(t: Takeover, timings: LeaseTimings): string[] {
  const byTarget = new Map<string, string[]>();
  for (const m of t.moves) {
    const key = `${m.from} -> ${m.to}`;
    byTarget.set(key, [...(byTarget.get(key) ?? []), m.namespace]);
  }
  const moves = [...byTarget].map(([key, namespaces]) => `${namespaces.join(', ')}: ${key}`);
  const bound = timings.leaseDurationMs + 2 * timings.retryPeriodMs;
  const held = t.leaseHolderAfterKill === t.victim ? 'still names it (nothing released it)' : `names ${t.leaseHolderAfterKill ?? 'nobody'}`;
  return [
    ...formatShares('Takeover: the shares now', t.after, ' since the kill'),
    `killed:            ${t.victim} (pid ${t.pid}) at ${seconds(t.killedAtMs)}, exit signal ${t.exitSignal ?? 'none'}; its member lease ${held}`,
    `lease timings:     ${formatTimings(timings)}`,
    `counted out:       ${t.countedOut.map((c) => `by ${c.identity} after ${seconds(c.afterMs)}`).join(', ')}`,
    `moved:             ${moves[0] ?? 'nothing'}`,
    ...moves.slice(1).map((m) => `                   ${m}`),
    `orphaned WebApps:  ${t.orphans}, their specs edited right after the kill`,
    `reconciled again:  every orphan ${seconds(t.reconciledAgainMs)} after the kill, by its new owner` +
      ` (bound: lease duration + 2 retry periods = ${seconds(bound)}, plus the passes)`,
    `converged:         every orphan ${seconds(t.convergedMs)} after the kill`,
  ];
}

/** The closing summary. */
export function formatReplicasSummary(s: ReplicasSummary): string[] {
  const failed = s.phases.find((p) => !p.ok);
  const result = s.ok
    ? `converged: all ${s.webApps} WebApps over ${s.namespaces.length} namespaces, through a split over ${s.replicas} replicas and a takeover`
    : failed !== undefined
      ? `FAILED at "${failed.name}": ${failed.failure ?? ''}`
      : `FAILED: ${s.phases.length} of ${s.plannedPhases} phases ran`;
  return [
    '',
    '=== Summary ===',
    `result:            ${result}`,
    `duration:          ${(s.durationMs / 1000).toFixed(2)} s`,
    `replicas:          ${s.replicas} child processes, shard filter ${s.mode ?? 'unknown'}; exits: ${
      Object.entries(s.exits)
        .map(([id, how]) => `${id} ${how}`)
        .join(', ') || '-'
    }`,
    `converged:         ${s.converged}/${s.webApps} WebApps at the final check`,
    `passes:            ${s.totalPasses} in all; ${s.passesOutsideShare} in the split phase outside the passing replica's share;` +
      ` ${s.overlaps} overlapping (one WebApp, two replicas, same time)`,
    `handoff waits:     ${s.waits} (a replica waited for another to let go of a range)`,
    `phases:`,
    ...s.phases.map(
      (p, i) => `  ${String(i + 1).padStart(2)}. ${p.ok ? 'ok  ' : 'FAIL'} ${p.name.padEnd(52)} ${(p.elapsedMs / 1000).toFixed(2)} s`,
    ),
  ];
}
