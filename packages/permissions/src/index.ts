export { type CompareOptions, compareWithRbac, type MissingAccess, type RbacComparison, type UnusedGrant } from './compareWithRbac.js';
export { describeComparison } from './describeComparison.js';
export {
  type AccessLogJson,
  type PermissionsSource,
  permissionsUsed,
  type PermissionsUsed,
  type PermissionsUsedOptions,
  type UsedNonResourceUrl,
  type UsedResource,
  type UsedVerb,
} from './permissionsUsed.js';
export { RbacManifestError } from './RbacManifestError.js';
export { type RbacYamlOptions, toRbacYaml } from './toRbacYaml.js';
