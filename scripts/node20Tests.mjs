#!/usr/bin/env node
// Which unit tests the Node 20 leg (scripts/node20-compat.mjs) runs again on
// Node 20 with @kubernetes/client-node 1.4, and the check that keeps that
// choice whole.
//
// Why not all of them: the tests run the same compiled code on both Nodes
// (SWC's output does not depend on the Node running it, and tsconfig's
// `lib: ES2023` keeps newer language built-ins out of the code, which
// tsc checks), and node20-compat's typecheck against @types/node 20
// catches a Node API Node 20 lacks. What does differ is what sits under that
// code: Node's own network stack (node:http, https, http2, tls, net, streams,
// fetch's undici), its OpenSSL, its module loader, and the
// @kubernetes/client-node version (1.4 on Node 20: client-node 2.x needs
// Node 22.19). A test is re-run when it exercises one of those directly;
// the others would repeat, on Node 20, code paths that do not change there.
//
// The check (run by `pnpm test` as the quick step `node20-tests`, and by
// node20-compat before its unit tests):
//   - every unit test that touches such a surface (imports a `SURFACES`
//     module or client-node as a value, or calls the global fetch, itself or
//     in a module of its package it imports) is in NODE20_TESTS or in
//     SAME_ON_NODE20, each with its reason: a new one fails until it is
//     placed;
//   - every published module that touches one is run on Node 20 by a test in
//     NODE20_TESTS (one that imports it, or names it in `covers`), or is in
//     NOT_RERUN_MODULES with its reason;
//   - every file named exists, and a module named in `covers` is in that
//     test's imports (directly or through others).
//
// Usage: node scripts/node20Tests.mjs [--list]   (exit 1 when the check fails; --list prints the selection)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Run on Node 20 + client-node 1.4: test file (from the repository root) -> why, and `covers`: published modules it
 * exercises without importing them itself.
 */
export const NODE20_TESTS = {
  // transport: Node's HTTP/2, HTTP/1.1 and TLS under every request.
  'packages/transport/src/ApiServerConnection.test.ts': {
    why: 'HTTP/2 sessions, the HTTP/1.1 fallback, ALPN and TLS options: node:http2, https, tls and net',
  },
  'packages/transport/src/H2Session.test.ts': {
    why: "an HTTP/2 session's life (GOAWAY, stream resets, idle close) on Node 20's node:http2 (nghttp2)",
  },
  'packages/transport/src/KubeConnectionPool.test.ts': {
    why: "the pool over HTTP/2 and HTTP/1.1 with a client-node KubeConfig (testServers.testkit.ts): client-node 1.4's applyToHTTPSOptions",
    covers: ['packages/transport/src/http1Request.ts'],
  },
  'packages/transport/src/ProteanKubeConfig.pool.test.ts': {
    why: 'client certificates, token files and exec credentials into TLS options (tlsIdentity.ts reads node:crypto through process.getBuiltinModule, new in Node 20.16)',
    covers: ['packages/transport/src/tlsIdentity.ts'],
  },
  'packages/transport/src/ProteanKubeConfig.noClientNode.test.ts': {
    why: "@protean/transport loaded without client-node installed, by Node 20's module loader",
  },
  'packages/transport/src/parseKubeConfig.test.ts': {
    why: "YAML KubeConfigs parsed by js-yaml, required through createRequire the first time one is parsed: Node 20's require() of it",
  },
  'packages/transport/src/clientNodeRuntime.test.ts': {
    why: 'the client-node runtime check, which finds 1.4 installed here: the branch that lets Node 20 through',
  },
  // client-node 1.4 where Protean meets it.
  'packages/client/src/KubeConfigTransport.test.ts': {
    why: "KubeClient over client-node 1.4's KubeConfig (its applyToHTTPSOptions and agent)",
  },
  'packages/in-memory-apiserver/src/InMemoryApiServer.clientNode.test.ts': {
    why: "client-node 1.4's CoreV1Api, Watch and informer against the in-memory server, as a Node 20 user's tests use it",
  },
  'packages/integration-tests/src/conformance/conformance.inmemory.test.ts': {
    why: "the conformance suite on the in-memory server, with its client-node part (clientNodeTests.ts): client-node 1.4's CoreV1Api, CustomObjectsApi (1.x sends a JSON patch), ApiextensionsV1Api and ApiException codes",
  },
  'docs/guide/src/greetingController.test.ts': {
    why: "the guide's controller end to end on the in-memory server, read and written through client-node 1.4's CoreV1Api and CustomObjectsApi",
  },
  'examples/webapp/src/requestOptions.test.ts': {
    why: "the example's client-node request options (a merge-patch header, cancellation): client-node 1.4's request API",
  },
  'packages/envtest/src/TokenRequestError.test.ts': {
    why: "envtest's TokenRequest (serviceAccountKubeConfig.ts) through client-node 1.4's KubeConfig over node:http (kubeHttp.ts); envtest's other paths start a kube-apiserver: the real tier, Node 24",
    covers: ['packages/envtest/src/kubeHttp.ts'],
  },
  // The in-memory API server's HTTP, which a Node 20 user's tests run on.
  'packages/in-memory-apiserver/src/InMemoryApiServer.watch.test.ts': {
    why: "the server's chunked watch streams (node:http), read by Node 20's fetch (undici 6)",
  },
  'packages/in-memory-apiserver/src/InMemoryApiServer.faults.test.ts': {
    why: "dropped connections, aborted requests and timeouts: Node 20's sockets and fetch",
  },
  'packages/in-memory-apiserver/src/InMemoryApiServer.webhooks.test.ts': {
    why: 'the server calling admission webhooks over node:https',
    covers: ['packages/in-memory-apiserver/src/webhookCall.ts'],
  },
  // webhooks: an HTTP/2 + TLS server and certificates made with WebCrypto.
  'packages/webhooks/src/WebhookServer.test.ts': { why: 'the webhook server: node:http2 over TLS, HTTP/1.1 clients too' },
  'packages/webhooks/src/WebhookServer.certificates.test.ts': {
    why: 'serving certificates swapped under a running server (TLS secure contexts)',
  },
  'packages/webhooks/src/certificates.test.ts': {
    why: "keys and certificates made with WebCrypto and read with X509Certificate: Node 20's OpenSSL 3.0 (Node 24: 3.5)",
  },
  // Streams and sockets under the watch manager.
  'packages/watch-manager/src/KubernetesListWatch.streaming.test.ts': {
    why: 'LIST and WATCH bodies decoded as they stream in over the transport',
  },
  'packages/integration-tests/src/integration/KubernetesInformerSource.faults.int.test.ts': {
    why: "watches dropped mid-stream and half-open connections found by inactivity (the net.client.socket diagnostics channel): Node 20's sockets",
  },
  'packages/integration-tests/src/failFast/registerFailFast.int.test.ts': {
    why: 'a refused port and a certificate another CA signed: the socket and OpenSSL error codes of Node 20, which fail-fast names',
  },
  // HTTP servers and clients of the metrics and permissions packages.
  'packages/metrics/src/MetricsServer.test.ts': { why: 'the /metrics and health node:http server' },
  'packages/permissions/src/permissionsCli.test.ts': {
    why: "the permissions CLI reading a controller's page with the global fetch (Node 20: undici 6)",
  },
};

// Reasons shared by several entries below.
const SAME = {
  inMemoryHttp:
    "requests to the in-memory server over node:http, as InMemoryApiServer.watch, .faults and .clientNode run on Node 20; what this test adds is the server's own logic",
  fetchClient:
    "fetch is only the test's client of a metrics or status page server, whose node:http server MetricsServer.test runs on Node 20",
  kubeConfigInput:
    "a client-node KubeConfig passed in as configuration; client-node 1.4's KubeConfig under requests is KubeConfigTransport.test's and KubeConnectionPool.test's",
  poolHooks: "hooks around the pool's requests; the requests themselves, on both protocols, are KubeConnectionPool.test's",
  http1TestServer: "a node:http test server over the transport's HTTP/1.1 path, which KubeConnectionPool.test runs on Node 20",
  coreV1: "client-node's CoreV1Api against the in-memory server is InMemoryApiServer.clientNode's; the rest is the same compiled code",
  yaml: 'KubeConfigs read through parseKubeConfig.ts, whose require() of js-yaml parseKubeConfig.test runs on Node 20',
  stableCrypto: 'randomUUID, randomBytes, createHash and net.isIP: unchanged across Node 20 and 24',
};

/**
 * Touch a Node-version-sensitive surface, but do not run on Node 20: test file -> why (what covers the difference, or
 * why there is none).
 */
export const SAME_ON_NODE20 = {
  'packages/core/src/tracing/otelApi.test.ts':
    "createRequire and the CommonJS cache, read in fresh processes that run the module's TypeScript source (Node 24 strips its types): both unchanged since Node 12",
  'packages/create-protean/src/testing/prepareGeneratedProject.test.ts':
    "node:module's isBuiltin only sorts the import specifiers of a generated project's bundle; a generated project needs Node 24",
  'packages/in-memory-apiserver/src/InMemoryApiServer.apply.test.ts': SAME.inMemoryHttp,
  'packages/in-memory-apiserver/src/InMemoryApiServer.crd.test.ts': SAME.inMemoryHttp,
  'packages/in-memory-apiserver/src/InMemoryApiServer.crud.test.ts': SAME.inMemoryHttp,
  'packages/in-memory-apiserver/src/InMemoryApiServer.list.test.ts': SAME.inMemoryHttp,
  'packages/in-memory-apiserver/src/schemaFormats.test.ts': SAME.stableCrypto,
  'packages/in-memory-apiserver/src/webhookRules.test.ts':
    "which webhooks match a request; the https call itself is InMemoryApiServer.webhooks.test's",
  'packages/integration-tests/src/controller/DynamicController.di.test.ts': SAME.kubeConfigInput,
  'packages/integration-tests/src/failFast/informerLogSummary.int.test.ts':
    "the log lines of refused informers; the refused socket's error is registerFailFast.int.test's, run on Node 20",
  'packages/integration-tests/src/imports/runtimeModules.test.ts':
    "which modules each package's import graph loads: the compiled code's graph, the same on both; loading on Node 20 is ProteanKubeConfig.noClientNode.test's and the Node 20 consumer test's",
  'packages/integration-tests/src/kindChanges/kindChanges.inmemory.test.ts':
    "CRDs changed through client-node's ApiextensionsV1Api (kindChangeScenario.ts); client-node 1.4's typed APIs against the in-memory server are conformance.inmemory.test's and InMemoryApiServer.clientNode.test's",
  'packages/integration-tests/src/permissions/observedPermissions.int.test.ts': SAME.fetchClient,
  'packages/integration-tests/src/sharding/readmeExample.test.ts': SAME.coreV1,
  'packages/integration-tests/src/sharding/shardMetrics.test.ts': SAME.fetchClient,
  'packages/integration-tests/src/webhooks/webhookMetrics.test.ts': SAME.fetchClient,
  'packages/leader-election/src/KubeLeaseClient.int.test.ts': SAME.kubeConfigInput,
  'packages/leader-election/src/LeaderElectorOptions.test.ts': `${SAME.kubeConfigInput}; ${SAME.stableCrypto}`,
  'packages/metrics/src/instrumentContainer.health.test.ts': SAME.fetchClient,
  'packages/metrics/src/instrumentContainer.permissions.test.ts': SAME.fetchClient,
  'packages/metrics/src/instrumentContainer.stuckWorkers.test.ts': SAME.fetchClient,
  'packages/metrics/src/instrumentContainer.test.ts': SAME.fetchClient,
  'packages/metrics/src/instrumentContainer.tracing.test.ts': SAME.fetchClient,
  'packages/metrics/src/statusPage/controllerStatusPage.test.ts': SAME.fetchClient,
  'packages/metrics/src/statusPage/handleStatusPage.test.ts': `${SAME.fetchClient}; ${SAME.stableCrypto}`,
  'packages/permissions/src/permissionsUsed.test.ts': SAME.kubeConfigInput,
  'packages/sharding/src/MemberLeaseClient.test.ts': `${SAME.kubeConfigInput}; ${SAME.http1TestServer}`,
  'packages/sharding/src/detectShardSelectorSupport.test.ts': `${SAME.kubeConfigInput}; ${SAME.http1TestServer}`,
  'packages/transport/src/KubeConnectionPool.accessLog.test.ts': SAME.poolHooks,
  'packages/transport/src/KubeConnectionPool.beforeSend.test.ts': SAME.poolHooks,
  'packages/transport/src/ProteanKubeConfig.test.ts': SAME.yaml,
  'packages/transport/src/loadKubeConfigData.test.ts': SAME.yaml,
  'packages/watch-manager/src/InformerWatchManager.allowedResources.test.ts': SAME.kubeConfigInput,
  'packages/watch-manager/src/KubeRequest.test.ts': SAME.http1TestServer,
  'packages/watch-manager/src/KubernetesInformerOptions.test.ts': SAME.kubeConfigInput,
  'packages/watch-manager/src/KubernetesInformerSource.test.ts': `${SAME.kubeConfigInput}; ${SAME.http1TestServer}`,
  'packages/watch-manager/src/ServerReadiness.test.ts': SAME.http1TestServer,
  'packages/watch-manager/src/watchManagerModule.test.ts': SAME.kubeConfigInput,
  'packages/webhooks/src/AdmittingController.test.ts':
    'admission handlers behind WebhookServer, whose server (HTTP/2, TLS) WebhookServer.test runs on Node 20',
  'packages/webhooks/src/SelfManagedCertificates.test.ts':
    'Secrets, renewal and CA replacement around certificates.ts, whose WebCrypto and X509Certificate certificates.test runs on Node 20',
  'examples/webapp/src/runCli.noClientNode.test.ts':
    "the example's CLI without client-node: the loader case ProteanKubeConfig.noClientNode.test runs on Node 20",
  'examples/webapp/src/runCli.test.ts': SAME.fetchClient,
  'examples/webapp/src/runDemo.test.ts': SAME.fetchClient,
  'examples/webapp/src/runReplicas.test.ts': `replica processes of the example; ${SAME.coreV1}`,
};

/** Published modules on a sensitive surface that no Node 20 test needs to run: module -> why. */
export const NOT_RERUN_MODULES = {
  'packages/core/src/tracing/otelApi.ts': 'createRequire of @opentelemetry/api once installed and registered with: unchanged since Node 12',
  'packages/envtest/src/buildKubeConfig.ts':
    'envtest starts a real kube-apiserver: the real tier, on Node 24 (the Node 20 consumer test runs its CLI)',
  'packages/envtest/src/httpText.ts': 'envtest starts a real kube-apiserver: the real tier, on Node 24',
  'packages/envtest/src/freePort.ts': 'a listen on port 0 to find a free port: unchanged across Node 20 and 24',
  'packages/in-memory-apiserver/src/Admission.ts': SAME.stableCrypto,
  'packages/in-memory-apiserver/src/httpIo.ts': SAME.stableCrypto,
  'packages/in-memory-apiserver/src/objectRules.ts': SAME.stableCrypto,
  'packages/in-memory-apiserver/src/schemaFormats.ts': SAME.stableCrypto,
  'packages/leader-election/src/defaultIdentity.ts': SAME.stableCrypto,
  'packages/metrics/src/statusPage/statusPageDocument.ts': SAME.stableCrypto,
};

/**
 * The Node built-ins whose behaviour differs between Node 20 and 24 where Protean uses them (network, TLS and
 * crypto, streams, diagnostics channels, the module loader). node:fs, path, os, url, util, events, child_process and
 * the like are left out: what Protean uses of them is the same on both.
 */
const SURFACES = new Set(['http', 'https', 'http2', 'tls', 'net', 'dns', 'stream', 'crypto', 'diagnostics_channel', 'module', 'zlib']);
const CLIENT_NODE = '@kubernetes/client-node';
/** Test files of the real and browser tiers, which the unit tier's Jest configs leave out. */
const OTHER_TIERS = /\.(real|browser)\.test\.ts$/;
/**
 * Value imports and re-exports (`import x from '...'`, `import '...'`, `export * from '...'`), `import('...')`,
 * `process.getBuiltinModule('...')`, and calls of the global fetch or WebSocket (not `x.fetch(` or a method named fetch).
 */
const IMPORT =
  /(?:^|[\n;])\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?'([^']+)'|\bimport\(\s*'([^']+)'\s*\)|getBuiltinModule\(\s*'([^']+)'\s*\)|(?<![.\w$]|(?:async|function|static|private|protected|public)\s+)(fetch|WebSocket)\(/g;

/** The directories with a unit tier (a jest.config.js), from `root`: packages/*, examples/*, docs/guide. */
export function unitTestDirs(root) {
  return ['packages', 'examples']
    .flatMap((parent) => (existsSync(join(root, parent)) ? readdirSync(join(root, parent)).map((name) => `${parent}/${name}`) : []))
    .concat(['docs/guide'])
    .filter((dir) => existsSync(join(root, dir, 'jest.config.js')));
}

/** The unit-test files under `<root>/<dir>/src` for each of `dirs`, relative to `root`, sorted. */
function unitTests(root, dirs) {
  return dirs
    .flatMap((dir) => {
      const src = join(root, dir, 'src');
      if (!existsSync(src)) return [];
      return readdirSync(src, { recursive: true })
        .map(String)
        .filter((file) => file.endsWith('.test.ts') && !OTHER_TIERS.test(file))
        .map((file) => `${dir}/src/${file}`);
    })
    .sort();
}

/** A module's sensitive surfaces and the workspace modules it imports as values (relative to `root`). */
function scan(root, file, cache) {
  const known = cache.get(file);
  if (known !== undefined) return known;
  const source = readFileSync(join(root, file), 'utf8');
  const surfaces = new Set();
  const relativeImports = [];
  const modules = [];
  for (const match of source.matchAll(IMPORT)) {
    if (match[6] !== undefined) {
      surfaces.add('fetch');
      continue;
    }
    if (match[2] !== undefined) continue;
    const specifier = match[3] ?? match[4] ?? match[5];
    if (specifier === CLIENT_NODE) surfaces.add('client-node');
    const builtin = /^node:([a-z_0-9]+)/.exec(specifier);
    if (builtin !== null && SURFACES.has(builtin[1])) surfaces.add(`node:${builtin[1]}`);
    const module = resolveModule(root, file, specifier);
    if (module === undefined) continue;
    modules.push(module);
    if (specifier.startsWith('.') && !module.endsWith('/index.ts')) relativeImports.push(module);
  }
  const result = { surfaces, modules, relativeImports };
  cache.set(file, result);
  return result;
}

/** A relative or `@protean/<pkg>[/testing|/internal]` specifier as the workspace .ts file it maps to (as jest.preset.js does). */
function resolveModule(root, from, specifier) {
  let base;
  if (specifier.startsWith('.')) base = relative(root, resolve(root, dirname(from), specifier.replace(/\.js$/, '')));
  else {
    const protean = /^@protean\/([a-z-]+)(?:\/(testing|internal))?$/.exec(specifier);
    if (protean === null) return undefined;
    const entry = protean[2] === undefined ? 'index' : protean[2] === 'testing' ? 'testing/index' : 'internal';
    base = `packages/${protean[1]}/src/${entry}`;
  }
  return [`${base}.ts`, `${base}/index.ts`].find((candidate) => existsSync(join(root, candidate)));
}

/** Every module `file` imports as a value, directly or through others (relative to `root`). */
function reach(root, file, cache) {
  const seen = new Set([file]);
  for (const pending = [file]; pending.length > 0;) {
    for (const module of scan(root, pending.pop(), cache).modules) {
      if (!seen.has(module)) {
        seen.add(module);
        pending.push(module);
      }
    }
  }
  return seen;
}

/** The published packages' own modules (not tests, testkits or private packages), relative to `root`. */
function publishedModules(root) {
  const packages = existsSync(join(root, 'packages')) ? readdirSync(join(root, 'packages')) : [];
  return packages
    .filter((name) => existsSync(join(root, 'packages', name, 'package.json')))
    .filter((name) => JSON.parse(readFileSync(join(root, 'packages', name, 'package.json'), 'utf8')).private !== true)
    .flatMap((name) => {
      const src = join(root, 'packages', name, 'src');
      if (!existsSync(src)) return [];
      return readdirSync(src, { recursive: true })
        .map(String)
        .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.endsWith('.testkit.ts'))
        .map((file) => `packages/${name}/src/${file}`);
    })
    .sort();
}

/**
 * Checks the selection against the tree at `root`. Returns `{ problems, tests }`: `tests` the NODE20_TESTS files
 * (relative to `root`), `problems` one line for each thing to fix (empty when the selection is whole).
 */
export function checkNode20Tests(root) {
  const cache = new Map();
  const problems = [];
  const all = unitTests(root, unitTestDirs(root));
  const known = new Set(all);
  for (const [list, entries] of [
    ['NODE20_TESTS', NODE20_TESTS],
    ['SAME_ON_NODE20', SAME_ON_NODE20],
  ])
    for (const file of Object.keys(entries)) if (!known.has(file)) problems.push(`${list} names ${file}, which is not a unit test here`);
  for (const file of Object.keys(NODE20_TESTS))
    if (file in SAME_ON_NODE20) problems.push(`${file} is in both NODE20_TESTS and SAME_ON_NODE20`);

  // Tests on a sensitive surface, themselves or through the modules of their package they import (directly or through
  // others, not through an index.ts, and not past a module NOT_RERUN_MODULES excuses).
  const describe = (file) => {
    const touches = [...scan(root, file, cache).surfaces];
    const seen = new Set([file]);
    for (const pending = [file]; pending.length > 0;) {
      for (const module of scan(root, pending.pop(), cache).relativeImports) {
        if (seen.has(module) || module in NOT_RERUN_MODULES) continue;
        seen.add(module);
        pending.push(module);
        const surfaces = [...scan(root, module, cache).surfaces];
        if (surfaces.length > 0) touches.push(`${module.split('/src/')[1]} (${surfaces.join(', ')})`);
      }
    }
    return touches;
  };
  for (const file of all) {
    if (file in NODE20_TESTS || file in SAME_ON_NODE20) continue;
    const touches = describe(file);
    if (touches.length > 0)
      problems.push(
        `${file} touches ${touches.join(', ')}: add it to NODE20_TESTS (runs on Node 20) or SAME_ON_NODE20 (with the reason it need not) in scripts/node20Tests.mjs`,
      );
  }

  // Published modules on a sensitive surface: each run on Node 20 by a listed test, or said why not.
  const covered = new Map();
  for (const [test, { covers = [] }] of Object.entries(NODE20_TESTS)) {
    if (!known.has(test)) continue;
    const reached = reach(root, test, cache);
    for (const module of covers) {
      if (!reached.has(module)) problems.push(`NODE20_TESTS: ${test} covers ${module}, which it does not import`);
      covered.set(module, test);
    }
    for (const module of scan(root, test, cache).relativeImports) covered.set(module, test);
  }
  for (const module of publishedModules(root)) {
    const surfaces = [...scan(root, module, cache).surfaces];
    if (surfaces.length === 0 || covered.has(module) || module in NOT_RERUN_MODULES) continue;
    problems.push(
      `${module} uses ${surfaces.join(', ')} and no test in NODE20_TESTS imports it or names it in covers: add one, or the module to NOT_RERUN_MODULES with the reason, in scripts/node20Tests.mjs`,
    );
  }
  for (const module of Object.keys(NOT_RERUN_MODULES))
    if (!existsSync(join(root, module))) problems.push(`NOT_RERUN_MODULES names ${module}, which does not exist`);
  return { problems, tests: Object.keys(NODE20_TESTS).filter((file) => known.has(file)) };
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const { problems, tests } = checkNode20Tests(root);
  if (process.argv.includes('--list')) for (const file of tests) console.log(`${file}: ${NODE20_TESTS[file].why}`);
  for (const problem of problems) console.log(`node20 tests: ${problem}`);
  console.log(
    problems.length === 0
      ? `node20 tests: ${tests.length} unit-test files run on Node 20, ${Object.keys(SAME_ON_NODE20).length} on a Node-sensitive surface left to Node 24 with their reasons; every sensitive published module covered or excused`
      : `node20 tests: ${problems.length} problem(s)`,
  );
  process.exitCode = problems.length === 0 ? 0 : 1;
}
