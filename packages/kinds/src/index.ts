export { type CrdDrift, crdDrift, crdYaml, GENERATED_HEADER } from './crdYaml.js';
export { type CliResult, runCrdCli } from './cli.js';
export {
  type CustomResourceDefinition,
  defineKind,
  type KindDeclaration,
  type KindObject,
  type KindObjectMeta,
  type KindOptions,
  type KindVersion,
  pluralOf,
  type PrinterColumn,
  type ValidationRule,
} from './defineKind.js';
export { ensureKind, type EnsureKindOptions } from './ensureKind.js';
export { EnsureKindError, KindNamesConflictError, KindNotEstablishedError, KindRejectedError } from './ensureKindErrors.js';
export { KindSchemaError } from './KindSchemaError.js';
export { type JsonSchemaProps, toStructural } from './structuralSchema.js';
