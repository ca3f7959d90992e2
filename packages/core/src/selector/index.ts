export { equalityRequirements } from './equalityRequirements.js';
export { Everything } from './Everything.js';
export type { LabelSelector, LabelSelectorOperator, LabelSelectorRequirement } from './LabelSelector.js';
export { Nothing, NOTHING_SELECTOR_STRING } from './Nothing.js';
export { parseSelector } from './parseSelector.js';
export type { Requirement, Selector, SelectorOperator } from './Selector.js';
export { selectorMismatch, type SelectorMismatch } from './selectorMismatch.js';
export { SelectorError, type SelectorErrorLocation } from './SelectorError.js';
export { selectorFromLabelSelector } from './selectorFromLabelSelector.js';
export {
  LABEL_NAME_MAX_LENGTH,
  LABEL_PREFIX_MAX_LENGTH,
  LABEL_VALUE_MAX_LENGTH,
  validateLabelKey,
  validateLabelValue,
} from './validation.js';
