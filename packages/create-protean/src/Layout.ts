/** The deployment layouts a project can be generated with. */
export const LAYOUTS = ['leader-election', 'sharding'] as const;

/**
 * `leader-election`: two replicas, one reconciling, the other a warm standby
 * (`@protean/leader-election`). `sharding`: every replica reconciles its
 * share of the namespaces (`@protean/sharding`).
 */
export type Layout = (typeof LAYOUTS)[number];

/** Whether `value` names a {@link Layout}. */
export function isLayout(value: string): value is Layout {
  return (LAYOUTS as readonly string[]).includes(value);
}
