/** Operators of a `metav1.LabelSelectorRequirement`. */
export type LabelSelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

/**
 * One entry of `LabelSelector.matchExpressions` (`metav1.LabelSelectorRequirement`).
 * `values` must be non-empty for `In`/`NotIn` and empty or absent for
 * `Exists`/`DoesNotExist`.
 */
export interface LabelSelectorRequirement {
  readonly key: string;
  /**
   * One of {@link LabelSelectorOperator}; typed as `string` too so that
   * client-node's `V1LabelSelector` passes without a cast. Unknown operators
   * are rejected at run time.
   */
  readonly operator: LabelSelectorOperator | (string & {});
  readonly values?: readonly string[] | null | undefined;
}

/**
 * The object form of a label selector (`metav1.LabelSelector`), as found in
 * Kubernetes specs; all entries are ANDed.
 *
 * Easy to get wrong: a `null`/absent LabelSelector selects nothing, while
 * `{}` selects everything.
 */
export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>> | null | undefined;
  readonly matchExpressions?: readonly LabelSelectorRequirement[] | null | undefined;
}
