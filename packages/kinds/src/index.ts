export { type CrdDrift, crdDrift } from './crdYaml.js';
export {
  type CustomResourceDefinition,
  defineKind,
  type KindDeclaration,
  type KindObject,
  type KindObjectMeta,
  type KindOptions,
  type KindVersion,
  type PrinterColumn,
  type ValidationRule,
} from './defineKind.js';
export { ensureKind, type EnsureKindOptions } from './ensureKind.js';
export { EnsureKindError, KindNamesConflictError, KindNotEstablishedError, KindRejectedError } from './ensureKindErrors.js';
export { KindSchemaError } from './KindSchemaError.js';
export { type JsonSchemaProps } from './structuralSchema.js';
