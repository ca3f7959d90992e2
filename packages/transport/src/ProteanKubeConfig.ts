import type * as https from 'node:https';
import { ExecCredentialPlugin } from './ExecCredentialPlugin.js';
import { KubeConfigError } from './KubeConfigError.js';
import type { KubeConfigLike } from './KubeConfigLike.js';
import type { KubeConfigCluster, KubeConfigContext, KubeConfigData, KubeConfigUser } from './kubeConfigData.js';
import { inClusterKubeConfig, loadDefaultKubeConfigData, loadKubeConfigFile, type KubeConfigEnvironment } from './loadKubeConfigData.js';
import { parseKubeConfig, parseKubeConfigText } from './parseKubeConfig.js';
import { RereadFiles } from './RereadFiles.js';

/** How a {@link ProteanKubeConfig} reads time, files and the terminal; the defaults are this process's. */
export interface ProteanKubeConfigOptions {
  /** Wall-clock milliseconds since the epoch (default `Date.now`): exec credential expiry and file re-reads. */
  readonly now?: () => number;
  /** How long a token, certificate or CA file is used before it is read again (default 60 000, as client-go's token file). */
  readonly fileRefreshMs?: number;
  /** Whether exec plugins may prompt on this process's terminal (default `process.stdin.isTTY`). */
  readonly stdinIsTTY?: boolean;
}

const EMPTY: KubeConfigData = { clusters: [], users: [], contexts: [] };

/**
 * Protean's KubeConfig reader: loads KubeConfig files, `KUBECONFIG`,
 * `~/.kube/config` or a pod's service account like client-node's
 * `KubeConfig` does, and puts the current credentials on each request
 * (token, token file, client certificate, basic auth, exec credential
 * plugins), without loading `@kubernetes/client-node` and its generated
 * API (about 80 MiB of RSS). Every Protean package accepts it where it
 * accepts client-node's `KubeConfig` ({@link KubeConfigLike}).
 *
 * Easy to get wrong: `auth-provider` users (the legacy oidc and gcp
 * plugins) and clusters with a `proxy-url` fail on the first request with
 * a {@link KubeConfigError} (`Unsupported`): switch the user to an exec
 * plugin (kubelogin, gke-gcloud-auth-plugin), or pass client-node's
 * `KubeConfig` instead.
 */
export class ProteanKubeConfig implements KubeConfigLike {
  private data: KubeConfigData = EMPTY;
  private source = 'empty';
  private currentContext: string | undefined;
  private plugins = new Map<string, ExecCredentialPlugin>();
  private readonly files: RereadFiles;
  private readonly now: () => number;

  constructor(private readonly options: ProteanKubeConfigOptions = {}) {
    this.now = options.now ?? Date.now;
    this.files = new RereadFiles(this.now, options.fileRefreshMs ?? 60_000);
  }

  /** `KUBECONFIG` (merged first-wins), else `~/.kube/config`, else the pod's service account, as kubectl. */
  loadFromDefault(environment: KubeConfigEnvironment = {}): void {
    this.use(loadDefaultKubeConfigData(environment), 'the default KubeConfig');
  }

  /** One KubeConfig file; its relative paths are resolved against its directory. */
  loadFromFile(path: string): void {
    this.use(loadKubeConfigFile(path), path);
  }

  /** KubeConfig YAML or JSON text; relative paths are resolved against `baseDir` (default the working directory). */
  loadFromString(text: string, baseDir: string = process.cwd()): void {
    this.use(parseKubeConfigText(text, { source: 'KubeConfig string', baseDir }), 'KubeConfig string');
  }

  /** A parsed KubeConfig document (`{ clusters: [{ name, cluster: { server, ... } }], users, contexts, 'current-context' }`). */
  loadFromObject(doc: unknown, baseDir: string = process.cwd()): void {
    this.use(parseKubeConfig(doc, { source: 'KubeConfig object', baseDir }), 'KubeConfig object');
  }

  /** The pod's service account: `KUBERNETES_SERVICE_HOST`/`PORT`, its `ca.crt`, `token` (re-read as it rotates) and `namespace`. */
  loadFromCluster(environment: KubeConfigEnvironment = {}): void {
    this.use(inClusterKubeConfig(environment), 'in-cluster');
  }

  getContexts(): readonly KubeConfigContext[] {
    return this.data.contexts;
  }

  getClusters(): readonly KubeConfigCluster[] {
    return this.data.clusters;
  }

  getUsers(): readonly KubeConfigUser[] {
    return this.data.users;
  }

  /** The current context's name (`current-context`, or the one set), `undefined` when there is none. */
  getCurrentContext(): string | undefined {
    return this.currentContext;
  }

  /** Switches to the context named `name`; throws a {@link KubeConfigError} (`NoContext`) naming the contexts there are. */
  setCurrentContext(name: string): void {
    if (!this.data.contexts.some((c) => c.name === name)) {
      const known = this.data.contexts.map((c) => c.name).join(', ');
      throw new KubeConfigError(
        'NoContext',
        this.source,
        `no context named ${JSON.stringify(name)} (contexts: ${known === '' ? 'none' : known})`,
      );
    }
    this.currentContext = name;
  }

  /** The current context's cluster, `null` when there is no current context or it names no known cluster. */
  getCurrentCluster(): KubeConfigCluster | null {
    const context = this.contextObject();
    return context === undefined ? null : (this.data.clusters.find((c) => c.name === context.cluster) ?? null);
  }

  /** The current context's user, `null` when there is none. */
  getCurrentUser(): KubeConfigUser | null {
    const context = this.contextObject();
    return context === undefined ? null : (this.data.users.find((u) => u.name === context.user) ?? null);
  }

  /** The current context's namespace, `undefined` when it sets none. */
  getCurrentNamespace(): string | undefined {
    return this.contextObject()?.namespace;
  }

  /**
   * Puts the current credentials and TLS settings on `options`: `ca`,
   * `cert`, `key`, `servername`, `rejectUnauthorized`, an
   * `Authorization: Bearer` header (token file, token or exec plugin) or
   * `auth` (basic). Files are re-read every `fileRefreshMs`; an exec
   * credential is reused until it expires.
   */
  async applyToHTTPSOptions(options: https.RequestOptions): Promise<void> {
    const { cluster, user } = this.resolved();
    if (cluster.proxyUrl !== undefined) {
      throw new KubeConfigError(
        'Unsupported',
        this.source,
        `cluster ${JSON.stringify(cluster.name)} has a proxy-url, which ProteanKubeConfig does not support: pass @kubernetes/client-node's KubeConfig instead`,
      );
    }
    if (user.authProvider !== undefined) {
      throw new KubeConfigError(
        'Unsupported',
        this.source,
        `user ${JSON.stringify(user.name)} uses auth-provider ${JSON.stringify(user.authProvider.name)}, which ProteanKubeConfig does not support: ` +
          "use an exec credential plugin instead (kubelogin for oidc, gke-gcloud-auth-plugin for gcp), or pass @kubernetes/client-node's KubeConfig",
      );
    }
    if (cluster.insecureSkipTlsVerify) options.rejectUnauthorized = false;
    const ca = this.material(cluster.certificateAuthorityData, cluster.certificateAuthority);
    if (ca !== undefined) options.ca = ca;
    if (cluster.tlsServerName !== undefined) options.servername = cluster.tlsServerName;
    const cert = this.material(user.clientCertificateData, user.clientCertificate);
    const key = this.material(user.clientKeyData, user.clientKey);
    if (cert !== undefined) options.cert = cert;
    if (key !== undefined) options.key = key;
    let token = user.tokenFile === undefined ? user.token : this.files.read(user.tokenFile).toString('utf8').trim();
    if (user.exec !== undefined) {
      const credential = await this.plugin(user, cluster).credential();
      if (credential.token !== undefined) token = credential.token;
      if (credential.clientCertificateData !== undefined && credential.clientKeyData !== undefined) {
        options.cert = Buffer.from(credential.clientCertificateData);
        options.key = Buffer.from(credential.clientKeyData);
      }
    }
    if (token !== undefined && token !== '') {
      options.headers = { ...(options.headers as Record<string, string> | undefined), Authorization: `Bearer ${token}` };
    } else if (user.username !== undefined && user.password !== undefined) {
      options.auth = `${user.username}:${user.password}`;
    }
  }

  private use(data: KubeConfigData, source: string): void {
    this.data = data;
    this.source = source;
    this.currentContext = data.currentContext;
    this.plugins = new Map();
  }

  private contextObject(): KubeConfigContext | undefined {
    const name = this.currentContext;
    return name === undefined ? undefined : this.data.contexts.find((c) => c.name === name);
  }

  private resolved(): { cluster: KubeConfigCluster; user: KubeConfigUser } {
    const name = this.currentContext;
    if (name === undefined) throw new KubeConfigError('NoContext', this.source, 'no current-context is set');
    const context = this.contextObject();
    if (context === undefined)
      throw new KubeConfigError('NoContext', this.source, `the current context ${JSON.stringify(name)} does not exist`);
    const cluster = this.getCurrentCluster();
    if (cluster === null)
      throw new KubeConfigError(
        'NoContext',
        this.source,
        `cluster ${JSON.stringify(context.cluster)} of context ${JSON.stringify(name)} does not exist`,
      );
    // A context without a user authenticates with nothing but its TLS settings, as kubectl does.
    const user = context.user === '' ? { name: '' } : this.getCurrentUser();
    if (user === null)
      throw new KubeConfigError(
        'NoContext',
        this.source,
        `user ${JSON.stringify(context.user)} of context ${JSON.stringify(name)} does not exist`,
      );
    return { cluster, user };
  }

  /** Inline base64 data wins over the file, as in kubectl. */
  private material(data: string | undefined, file: string | undefined): Buffer | undefined {
    if (data !== undefined && data !== '') return Buffer.from(data, 'base64');
    if (file === undefined) return undefined;
    try {
      return this.files.read(file);
    } catch (err) {
      throw new KubeConfigError('ReadFailed', this.source, `cannot read ${file}: ${(err as Error).message}`, err);
    }
  }

  private plugin(user: KubeConfigUser, cluster: KubeConfigCluster): ExecCredentialPlugin {
    const key = `${user.name}\0${cluster.name}`;
    let plugin = this.plugins.get(key);
    if (plugin === undefined && user.exec !== undefined) {
      const caData = this.material(cluster.certificateAuthorityData, cluster.certificateAuthority)?.toString('base64');
      plugin = new ExecCredentialPlugin(user.exec, {
        now: this.now,
        cluster: { ...cluster, ...(caData === undefined ? {} : { caData }) },
        ...(this.options.stdinIsTTY === undefined ? {} : { stdinIsTTY: this.options.stdinIsTTY }),
      });
      this.plugins.set(key, plugin);
    }
    return plugin as ExecCredentialPlugin;
  }
}

/** A {@link ProteanKubeConfig} loaded as `loadFromDefault()` does, with `context` as the current context when given. */
export function loadKubeConfig(
  options: ProteanKubeConfigOptions & KubeConfigEnvironment & { readonly context?: string } = {},
): ProteanKubeConfig {
  const kubeConfig = new ProteanKubeConfig(options);
  kubeConfig.loadFromDefault(options);
  if (options.context !== undefined) kubeConfig.setCurrentContext(options.context);
  return kubeConfig;
}
