import { createRequire } from 'node:module';
import { isAbsolute, resolve } from 'node:path';
import type * as JsYaml from 'js-yaml';
import { KubeConfigError } from './KubeConfigError.js';
import type { KubeConfigCluster, KubeConfigContext, KubeConfigData, KubeConfigExec, KubeConfigUser } from './kubeConfigData.js';

/** Where a KubeConfig came from: `source` for messages, `baseDir` to resolve its relative file paths against. */
export interface KubeConfigOrigin {
  readonly source: string;
  readonly baseDir: string;
}

const EXEC_API_VERSIONS = new Set(['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1']);
const INTERACTIVE_MODES = new Set(['Never', 'IfAvailable', 'Always']);

type Fields = Record<string, unknown>;

/**
 * js-yaml's `load`, required the first time a YAML KubeConfig is parsed: a
 * process that never reads one (in-cluster config, a JSON KubeConfig) does
 * not load the parser (about 4 MiB of RSS). Required from this package's own
 * directory, found by its name: an application bundled into one file runs
 * this code from its own `dist/`, where js-yaml (a dependency of this
 * package, not of the application) need not resolve, as under pnpm.
 */
let yamlLoad: ((text: string) => unknown) | undefined;
function loadYaml(text: string): unknown {
  if (yamlLoad === undefined) {
    const manifest = createRequire(import.meta.url).resolve('@protean/transport/package.json');
    yamlLoad = (createRequire(manifest)('js-yaml') as typeof JsYaml).load;
  }
  return yamlLoad(text);
}

/** Parses KubeConfig text, YAML or JSON (JSON is read with `JSON.parse`, no YAML parser involved). */
export function parseKubeConfigText(text: string, origin: KubeConfigOrigin): KubeConfigData {
  // kubectl reads an empty file (or one of comments only) as an empty config; the YAML parser would refuse it.
  if (text.replace(/^\s*#.*$/gm, '').trim() === '') return parseKubeConfig(undefined, origin);
  let doc: unknown;
  try {
    doc = text.trimStart().startsWith('{') ? JSON.parse(text) : loadYaml(text);
  } catch (err) {
    throw new KubeConfigError('Invalid', origin.source, `not a YAML or JSON KubeConfig: ${(err as Error).message}`, err);
  }
  return parseKubeConfig(doc, origin);
}

/**
 * The clusters, users, contexts and current context of a parsed KubeConfig
 * document (`kind: Config`), with relative file paths resolved against
 * `origin.baseDir` as kubectl does. An empty document is an empty config.
 * Throws a {@link KubeConfigError} (`Invalid`) naming the entry and field
 * that is wrong.
 */
export function parseKubeConfig(doc: unknown, origin: KubeConfigOrigin): KubeConfigData {
  if (doc === null || doc === undefined) return { clusters: [], users: [], contexts: [] };
  const at = new Reader(origin);
  const root = at.object(doc, 'the document');
  const currentContext = at.string(root, 'current-context', 'the document');
  return {
    clusters: at.entries(root, 'clusters', 'cluster', (f, name, where) => cluster(at, f, name, where)),
    users: at.entries(root, 'users', 'user', (f, name, where) => user(at, f, name, where)),
    contexts: at.entries(root, 'contexts', 'context', (f, name, where) => context(at, f, name, where)),
    ...(currentContext === undefined || currentContext === '' ? {} : { currentContext }),
  };
}

function cluster(at: Reader, f: Fields, name: string, where: string): KubeConfigCluster {
  const server = at.string(f, 'server', where);
  if (server === undefined || server === '') throw at.invalid(`${where} has no server`);
  return compact({
    name,
    server,
    certificateAuthority: at.path(f, 'certificate-authority', where),
    certificateAuthorityData: at.string(f, 'certificate-authority-data', where),
    insecureSkipTlsVerify: at.boolean(f, 'insecure-skip-tls-verify', where) ?? false,
    tlsServerName: at.string(f, 'tls-server-name', where),
    proxyUrl: at.string(f, 'proxy-url', where),
  });
}

function user(at: Reader, f: Fields, name: string, where: string): KubeConfigUser {
  const authProvider = f['auth-provider'];
  return compact({
    name,
    token: at.string(f, 'token', where),
    tokenFile: at.path(f, 'tokenFile', where),
    clientCertificate: at.path(f, 'client-certificate', where),
    clientCertificateData: at.string(f, 'client-certificate-data', where),
    clientKey: at.path(f, 'client-key', where),
    clientKeyData: at.string(f, 'client-key-data', where),
    username: at.string(f, 'username', where),
    password: at.string(f, 'password', where),
    exec: f['exec'] === undefined || f['exec'] === null ? undefined : exec(at, at.object(f['exec'], `${where}.exec`), `${where}.exec`),
    authProvider:
      authProvider === undefined || authProvider === null
        ? undefined
        : { name: at.string(at.object(authProvider, `${where}.auth-provider`), 'name', `${where}.auth-provider`) ?? '' },
  });
}

function exec(at: Reader, f: Fields, where: string): KubeConfigExec {
  const apiVersion = at.string(f, 'apiVersion', where) ?? '';
  if (!EXEC_API_VERSIONS.has(apiVersion)) {
    throw at.invalid(`${where}.apiVersion ${JSON.stringify(apiVersion)} is not client.authentication.k8s.io/v1 or v1beta1`);
  }
  const command = at.string(f, 'command', where);
  if (command === undefined || command === '') throw at.invalid(`${where} has no command`);
  const interactiveMode = at.string(f, 'interactiveMode', where) ?? (apiVersion.endsWith('/v1') ? undefined : 'IfAvailable');
  if (interactiveMode === undefined)
    throw at.invalid(`${where}.interactiveMode is required with ${apiVersion} (Never, IfAvailable or Always)`);
  if (!INTERACTIVE_MODES.has(interactiveMode))
    throw at.invalid(`${where}.interactiveMode ${JSON.stringify(interactiveMode)} is not Never, IfAvailable or Always`);
  const args = at.list(f, 'args', where).map((a, i) => {
    if (typeof a !== 'string') throw at.invalid(`${where}.args[${i}] is not a string`);
    return a;
  });
  const env = at.list(f, 'env', where).map((e, i) => {
    const entry = at.object(e, `${where}.env[${i}]`);
    const [n, v] = [at.string(entry, 'name', `${where}.env[${i}]`), at.string(entry, 'value', `${where}.env[${i}]`)];
    if (n === undefined || n === '') throw at.invalid(`${where}.env[${i}] has no name`);
    return { name: n, value: v ?? '' };
  });
  // A command with a path separator is relative to the KubeConfig's directory; a bare name is looked up on PATH.
  const resolved = command.includes('/') || command.includes('\\') ? at.absolute(command) : command;
  return compact({
    apiVersion,
    command: resolved,
    args,
    env,
    interactiveMode: interactiveMode as KubeConfigExec['interactiveMode'],
    installHint: at.string(f, 'installHint', where),
    provideClusterInfo: at.boolean(f, 'provideClusterInfo', where) ?? false,
  });
}

function context(at: Reader, f: Fields, name: string, where: string): KubeConfigContext {
  return compact({
    name,
    cluster: at.string(f, 'cluster', where) ?? '',
    user: at.string(f, 'user', where) ?? '',
    namespace: at.string(f, 'namespace', where),
  });
}

/** Drops `undefined` fields (the types are `exactOptionalPropertyTypes`). */
function compact<T>(value: { [K in keyof T]: T[K] | undefined }): T {
  for (const k of Object.keys(value) as (keyof T)[]) if (value[k] === undefined) delete value[k];
  return value as T;
}

/** Field access that names the file, entry and field in every error. */
class Reader {
  constructor(private readonly origin: KubeConfigOrigin) {}

  invalid(detail: string): KubeConfigError {
    return new KubeConfigError('Invalid', this.origin.source, detail);
  }

  object(value: unknown, where: string): Fields {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw this.invalid(`${where} is not a mapping`);
    return value as Fields;
  }

  list(f: Fields, key: string, where: string): readonly unknown[] {
    const value = f[key];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) throw this.invalid(`${where}.${key} is not a list`);
    return value;
  }

  string(f: Fields, key: string, where: string): string | undefined {
    const value = f[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw this.invalid(`${where}.${key} is not a string`);
    return value;
  }

  boolean(f: Fields, key: string, where: string): boolean | undefined {
    const value = f[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'boolean') throw this.invalid(`${where}.${key} is not true or false`);
    return value;
  }

  path(f: Fields, key: string, where: string): string | undefined {
    const value = this.string(f, key, where);
    return value === undefined || value === '' ? undefined : this.absolute(value);
  }

  absolute(path: string): string {
    return isAbsolute(path) ? path : resolve(this.origin.baseDir, path);
  }

  /** `clusters: [{ name, cluster: {...} }]` and the like; a missing `name` or body is an error. */
  entries<T>(root: Fields, key: string, body: string, build: (f: Fields, name: string, where: string) => T): T[] {
    return this.list(root, key, 'the document').map((raw, i) => {
      const entry = this.object(raw, `${key}[${i}]`);
      const name = this.string(entry, 'name', `${key}[${i}]`);
      if (name === undefined || name === '') throw this.invalid(`${key}[${i}] has no name`);
      const where = `${key}[${JSON.stringify(name)}]`;
      return build(this.object(entry[body] ?? {}, `${where}.${body}`), name, where);
    });
  }
}
