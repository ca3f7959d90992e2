/** Operators of a label requirement, named as in `metav1.LabelSelectorRequirement`. */
export type SelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

/**
 * One requirement of a selector. `key = value` and `key == value` are `In`
 * with one value; `key != value` is `NotIn` with one value.
 */
export interface Requirement {
  readonly key: string;
  readonly operator: SelectorOperator;
  /** Sorted, without duplicates; empty for `Exists`/`DoesNotExist`. */
  readonly values: readonly string[];
}

/** A parsed, validated label selector; immutable. */
export interface Selector {
  /** True when every requirement holds for `labels`. */
  matches(labels: Readonly<Record<string, string>>): boolean;
  /**
   * Canonical form: requirements sorted by key (then operator), values
   * sorted, printed as Kubernetes prints them. Equal selectors give equal
   * strings, and the string parses back to an equal selector; the one
   * exception is `Nothing`, whose string is a sentinel that does not parse.
   */
  toString(): string;
  /** True for the selector that matches everything (no requirements); false for `Nothing`. */
  empty(): boolean;
  /** The requirements, in canonical order (empty for Everything and Nothing). */
  requirements(): readonly Requirement[];
  /**
   * True only for `Nothing` (what a `null` LabelSelector means). A selector
   * whose requirements cannot all hold (`a=b,a=c`) still returns false.
   */
  matchesNothing(): boolean;
}
