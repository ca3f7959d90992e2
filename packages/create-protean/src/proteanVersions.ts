/**
 * The version of each `@protean/*` package released with this create-protean:
 * a generated project depends on `^<version>` of each. `proteanVersions.test.ts`
 * fails when a package.json in the repository says otherwise.
 */
export const PROTEAN_VERSIONS: Readonly<Record<string, string>> = {
  '@protean/client': '0.1.0',
  '@protean/coordinator': '0.1.0',
  '@protean/core': '0.1.0',
  '@protean/envtest': '0.1.0',
  '@protean/in-memory-apiserver': '0.1.0',
  '@protean/kinds': '0.1.0',
  '@protean/leader-election': '0.1.0',
  '@protean/metrics': '0.1.0',
  '@protean/permissions': '0.1.0',
  '@protean/queue': '0.1.0',
  '@protean/sharding': '0.1.0',
  '@protean/testing': '0.1.0',
  '@protean/transport': '0.1.0',
  '@protean/watch-manager': '0.1.0',
  '@protean/webhooks': '0.1.0',
};
