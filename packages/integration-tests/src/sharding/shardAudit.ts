// The shared audit of the sharded-replica test: what each replica appends
// per pass, and how the test reads it back into passes and overlaps.
import type { GroupVersionResource } from '@protean/core';

/** The parent kind of the test (namespaced CRD). */
export const PARENTS: GroupVersionResource = { group: 'sharding.protean.dev', version: 'v1', resource: 'shardparents' };
export const CONFIGMAPS: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
/** The child ConfigMap of parent `p` is `p` + this, in the parent's namespace. */
export const CHILD_SUFFIX = '-child';

/** One line of the audit file: the start or the end of one pass of one instance on one replica. */
export interface AuditLine {
  readonly replica: string;
  /** `namespace/name` of the parent. */
  readonly instance: string;
  readonly event: 'start' | 'end';
  /** `performance.timeOrigin + performance.now()`: milliseconds comparable across processes of one machine. */
  readonly at: number;
  /** The parent's `metadata.generation` in the replica's cache when the pass started (0 if not cached). */
  readonly generation: number;
  /** On `end`: whether the child ConfigMap was in the replica's cache after the watch. */
  readonly child?: boolean;
  /** On `end`: whether the pass was aborted (lost range, or stop). */
  readonly aborted?: boolean;
}

/** A pass rebuilt from the audit; `open` when it has no end line (its replica was killed during it). */
export interface Pass {
  readonly replica: string;
  readonly instance: string;
  readonly start: number;
  readonly end: number;
  readonly generation: number;
  readonly open: boolean;
}

/** What a replica answers to `{ type: 'report' }` on its IPC channel. */
export interface ReplicaReport {
  readonly id: number;
  readonly identity: string;
  readonly mode: 'server' | 'client';
  readonly members: readonly string[];
  /** The owned ranges, as hex `[start, end)` pairs. */
  readonly ranges: readonly (readonly [string, string])[];
  /** Per `gvrKey`, the keys the informers over the sharded source cache (`cachedObjects()` of the source). */
  readonly cached: Readonly<Record<string, readonly string[]>>;
  /** Per `gvrKey`, the keys the controller's informer shows its handlers. */
  readonly shown: Readonly<Record<string, readonly string[]>>;
  /** Per `gvrKey`, listed objects the client-side filter dropped (outside the share). */
  readonly filteredOut: Readonly<Record<string, number>>;
  readonly liveRawInformers: number;
  /** True when the controller's parent and ConfigMap informers both exist and have synced. */
  readonly synced: boolean;
}

/** Parses the audit file's text; throws naming the line that is not an audit line. */
export function parseAudit(text: string): AuditLine[] {
  const lines: AuditLine[] = [];
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    let line: AuditLine;
    try {
      line = JSON.parse(raw) as AuditLine;
    } catch (err) {
      throw new Error(`audit line ${i + 1} is not JSON: ${JSON.stringify(raw.slice(0, 120))}`, { cause: err });
    }
    if (typeof line.replica !== 'string' || typeof line.instance !== 'string' || typeof line.at !== 'number')
      throw new Error(`audit line ${i + 1} lacks replica, instance or at: ${raw.slice(0, 120)}`);
    lines.push(line);
  });
  return lines;
}

/**
 * Pairs each replica's start and end lines per instance, in order, into
 * passes. A start with no end is a pass cut short: it ends at
 * `killedAt.get(replica)` if the replica was killed, else it is still
 * running (ends at +Infinity).
 */
export function passesOf(lines: readonly AuditLine[], killedAt: ReadonlyMap<string, number> = new Map()): Pass[] {
  const open = new Map<string, AuditLine[]>();
  const passes: Pass[] = [];
  for (const line of lines) {
    const key = `${line.replica}\n${line.instance}`;
    if (line.event === 'start') {
      (open.get(key) ?? open.set(key, []).get(key)!).push(line);
      continue;
    }
    const start = open.get(key)?.shift();
    if (start === undefined) throw new Error(`audit: an end of ${line.instance} on ${line.replica} at ${line.at} without a start`);
    passes.push({
      replica: line.replica,
      instance: line.instance,
      start: start.at,
      end: line.at,
      generation: start.generation,
      open: false,
    });
  }
  for (const starts of open.values()) {
    for (const s of starts) {
      const end = killedAt.get(s.replica) ?? Number.POSITIVE_INFINITY;
      passes.push({ replica: s.replica, instance: s.instance, start: s.at, end, generation: s.generation, open: true });
    }
  }
  return passes;
}

/** Every pair of passes of one instance on two different replicas that overlap in time, described. */
export function overlaps(passes: readonly Pass[]): string[] {
  const byInstance = new Map<string, Pass[]>();
  for (const p of passes) (byInstance.get(p.instance) ?? byInstance.set(p.instance, []).get(p.instance)!).push(p);
  const found: string[] = [];
  for (const [instance, list] of byInstance) {
    const sorted = [...list].sort((a, b) => a.start - b.start);
    for (let i = 0; i < sorted.length; i++) {
      for (let j = i + 1; j < sorted.length && sorted[j]!.start < sorted[i]!.end; j++) {
        const a = sorted[i]!;
        const b = sorted[j]!;
        if (a.replica !== b.replica)
          found.push(
            `${instance}: ${a.replica} [${a.start.toFixed(1)}, ${a.end.toFixed(1)}] and ${b.replica} [${b.start.toFixed(1)}, ${b.end.toFixed(1)}]`,
          );
      }
    }
  }
  return found;
}
