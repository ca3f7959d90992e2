import type { Requirement, Selector } from './Selector.js';

/**
 * `Nothing.toString()`. `<` never appears in the canonical string of a
 * parsed selector (it would be the unsupported less-than operator), so this
 * key cannot collide with a real selector in a map, and a server that is
 * handed it as a `labelSelector` rejects it instead of listing everything.
 */
export const NOTHING_SELECTOR_STRING = '<nothing>';

const NO_REQUIREMENTS: readonly Requirement[] = Object.freeze([]);

class NothingSelector implements Selector {
  matches(): boolean {
    return false;
  }
  toString(): string {
    return NOTHING_SELECTOR_STRING;
  }
  empty(): boolean {
    return false;
  }
  requirements(): readonly Requirement[] {
    return NO_REQUIREMENTS;
  }
  matchesNothing(): boolean {
    return true;
  }
}

/**
 * The selector that matches no label set: what a `null`/absent
 * `LabelSelector` means. `matchesNothing()` is true, `empty()` false.
 *
 * Easy to get wrong: its `toString()` is {@link NOTHING_SELECTOR_STRING},
 * not `""` (that is `Everything`), and `parseSelector` rejects it:
 * there is no string syntax for "nothing".
 */
export const Nothing: Selector = Object.freeze(new NothingSelector());
