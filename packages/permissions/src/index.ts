export { type CompareOptions, compareWithRbac, type MissingAccess, type RbacComparison, type UnusedGrant } from './compareWithRbac.js';
export { describeComparison, describeMissing, describeUnused } from './describeComparison.js';
export { grantedToEveryone } from './grantedToEveryone.js';
export {
  type ManifestBinding,
  type ManifestRole,
  type ManifestRule,
  parseRbacManifests,
  type RbacManifests,
} from './parseRbacManifests.js';
export {
  type AccessLogJson,
  groupAccesses,
  type PermissionsSource,
  permissionsUsed,
  type PermissionsUsed,
  type PermissionsUsedOptions,
  rbacResourceName,
  type UsedNonResourceUrl,
  type UsedResource,
  type UsedVerb,
} from './permissionsUsed.js';
export { RbacManifestError } from './RbacManifestError.js';
export { type PolicyRule, rbacRules, type RbacRules, type RbacYamlOptions, toRbacYaml } from './toRbacYaml.js';
export { PERMISSIONS_USAGE, PERMISSIONS_USAGE_EXIT_CODE, type PermissionsCliIo, runPermissionsCli } from './permissionsCli.js';
