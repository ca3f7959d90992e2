// `@protean/client/internal`: the names only the other `@protean/*` packages
// use. Not part of this package's public API: no semver promise, and no API
// report (scripts/api-report.mjs reports `.` only). A name a user of Protean
// needs belongs in `index.ts` instead.
export { parseWarnings } from './apiWarnings.js';
export { type KubeHttpRequest, type KubeHttpResponse, type KubeTransport } from './KubeTransport.js';
