export type { Requirement, Selector, SelectorOperator } from './Selector.js';
