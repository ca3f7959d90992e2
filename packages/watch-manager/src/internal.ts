// `@protean/watch-manager/internal`: the names only the other `@protean/*` packages
// use. Not part of this package's public API: no semver promise, and no API
// report (scripts/api-report.mjs reports `.` only). A name a user of Protean
// needs belongs in `index.ts` instead.
export { LIST_ACCEPT, WATCH_ACCEPT } from './KubernetesInformerOptions.js';
export { type InformerListener } from './Informer.js';
export { StreamingListSupport } from './StreamingListSupport.js';
