let warnings = 0;

/**
 * Counts `n` warnings the API server sent (`Warning` headers: fields it
 * pruned, deprecated versions); `@protean/client` calls it for every
 * answer, `@protean/metrics` exports the total.
 */
export function countApiWarnings(n: number): void {
  if (Number.isFinite(n) && n > 0) warnings += n;
}

/** Warnings the API server sent to this process's clients so far. */
export function apiWarningCount(): number {
  return warnings;
}
