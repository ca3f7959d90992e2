/** `metav1.Condition`: one entry of `status.conditions`, as plain JSON. */
export interface Condition {
  /** CamelCase, e.g. `Ready`. Unique within the list. */
  type: string;
  status: 'True' | 'False' | 'Unknown';
  /** CamelCase machine-readable reason of the last transition, e.g. `ConfigMapCreated`. */
  reason: string;
  message: string;
  /** RFC 3339, whole seconds: when `status` last changed. */
  lastTransitionTime: string;
  /** The `metadata.generation` the condition was computed from. */
  observedGeneration?: number;
}

/** What {@link setStatusCondition} takes: a condition, with `lastTransitionTime` optional. */
export type ConditionInput = Omit<Condition, 'lastTransitionTime' | 'message'> & {
  message?: string;
  /** Used only when the status changes (or the condition is new); default: now. */
  lastTransitionTime?: string;
};

/**
 * Sets `condition` in `conditions` with `meta.SetStatusCondition`
 * semantics: a new type is appended; for an existing one, `status`,
 * `reason`, `message` and `observedGeneration` are updated, and
 * `lastTransitionTime` moves (to the input's, else `now`) only when the
 * status changes. Mutates `conditions`; returns true when anything changed,
 * so a handler writes status only when needed.
 *
 * Easy to get wrong: set `observedGeneration` to the generation you read
 * (`metadata.generation`), or readers cannot tell a stale condition from a
 * current one.
 */
export function setStatusCondition(conditions: Condition[], condition: ConditionInput, now: Date = new Date()): boolean {
  const existing = conditions.find((c) => c.type === condition.type);
  const message = condition.message ?? '';
  if (existing === undefined) {
    const added: Condition = {
      type: condition.type,
      status: condition.status,
      reason: condition.reason,
      message,
      lastTransitionTime: condition.lastTransitionTime ?? formatTime(now),
    };
    if (condition.observedGeneration !== undefined) added.observedGeneration = condition.observedGeneration;
    conditions.push(added);
    return true;
  }
  let changed = false;
  if (existing.status !== condition.status) {
    existing.status = condition.status;
    existing.lastTransitionTime = condition.lastTransitionTime ?? formatTime(now);
    changed = true;
  }
  if (existing.reason !== condition.reason) {
    existing.reason = condition.reason;
    changed = true;
  }
  if (existing.message !== message) {
    existing.message = message;
    changed = true;
  }
  if (existing.observedGeneration !== condition.observedGeneration) {
    if (condition.observedGeneration === undefined) delete existing.observedGeneration;
    else existing.observedGeneration = condition.observedGeneration;
    changed = true;
  }
  return changed;
}

/** The condition of `type`, if present (`meta.FindStatusCondition`). */
export function findStatusCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** Removes the condition of `type`; returns true when there was one (`meta.RemoveStatusCondition`). */
export function removeStatusCondition(conditions: Condition[], type: string): boolean {
  const at = conditions.findIndex((c) => c.type === type);
  if (at < 0) return false;
  conditions.splice(at, 1);
  return true;
}

/** True when the condition of `type` is present with status `True` (`meta.IsStatusConditionTrue`). */
export function isStatusConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findStatusCondition(conditions, type)?.status === 'True';
}

/** `metav1.Time` serialisation: RFC 3339 in UTC with whole seconds. */
function formatTime(date: Date): string {
  return new Date(Math.floor(date.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
