import { RequirementsSelector } from './RequirementsSelector.js';
import type { Selector } from './Selector.js';

/**
 * The selector that matches every label set: no requirements, `toString()`
 * is `""`, `empty()` is true. `parseSelector("")` and
 * `selectorFromLabelSelector({})` return it.
 *
 * Easy to get wrong: a `null` LabelSelector is {@link Nothing}, not this.
 */
export const Everything: Selector = Object.freeze(new RequirementsSelector([]));
