// `@protean/transport/internal`: the names only the other `@protean/*` packages
// use. Not part of this package's public API: no semver promise, and no API
// report (scripts/api-report.mjs reports `.` only). A name a user of Protean
// needs belongs in `index.ts` instead.
export { requestOnNewConnection } from './requestOnNewConnection.js';
export { type KubeStreamResponse } from './KubeStreamResponse.js';
export {
  describeKubeAccess,
  type KubeNonResourceAccess,
  type KubeNonResourceVerb,
  type KubeResourceAccess,
  type KubeResourceVerb,
} from './kubeAccessOf.js';
