export * from './compareWithRbac.js';
export { grantedToEveryone } from './grantedToEveryone.js';
export * from './parseRbacManifests.js';
export * from './permissionsUsed.js';
export * from './RbacManifestError.js';
export * from './toRbacYaml.js';
export * from './permissionsCli.js';
