import type { PassTrigger, PassTriggers } from '../tracing/PassTrigger.js';
import { PASS_TRIGGER_LIMIT } from '../tracing/PassTrigger.js';

const NONE: PassTriggers = { triggers: [], dropped: 0 };

/**
 * The triggers recorded per queued key (work item key) since its last pass
 * began, the last {@link PASS_TRIGGER_LIMIT} of each; a pass takes its own.
 * Written only while tracing is on.
 */
export class TriggerLog {
  private readonly byKey = new Map<string, { triggers: PassTrigger[]; dropped: number }>();

  record(key: string, trigger: PassTrigger): void {
    let entry = this.byKey.get(key);
    if (entry === undefined) {
      entry = { triggers: [], dropped: 0 };
      this.byKey.set(key, entry);
    }
    if (entry.triggers.length === PASS_TRIGGER_LIMIT) {
      entry.triggers.shift();
      entry.dropped++;
    }
    entry.triggers.push(trigger);
  }

  /** The key's triggers since its last `take`, forgotten here. */
  take(key: string): PassTriggers {
    const entry = this.byKey.get(key);
    if (entry === undefined) return NONE;
    this.byKey.delete(key);
    return entry;
  }

  /** Keys with triggers waiting. */
  size(): number {
    return this.byKey.size;
  }
}
