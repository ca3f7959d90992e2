/** One handler pass as a replica reported it; times in epoch milliseconds. */
export interface AuditedPass {
  readonly replica: string;
  readonly namespace: string;
  readonly name: string;
  readonly startMs: number;
  readonly endMs: number;
}

/**
 * The pairs of passes of one WebApp by two different replicas that ran at
 * the same time: what exclusive handoff rules out. Intervals that only
 * touch (one ends as the other starts) do not overlap.
 */
export function overlappingPasses(passes: readonly AuditedPass[]): [AuditedPass, AuditedPass][] {
  const byWebApp = new Map<string, AuditedPass[]>();
  for (const p of passes) {
    const key = `${p.namespace}/${p.name}`;
    byWebApp.set(key, [...(byWebApp.get(key) ?? []), p]);
  }
  const out: [AuditedPass, AuditedPass][] = [];
  for (const list of byWebApp.values()) {
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const a = list[i]!;
        const b = list[j]!;
        if (a.replica !== b.replica && a.startMs < b.endMs && b.startMs < a.endMs) out.push([a, b]);
      }
    }
  }
  return out;
}
