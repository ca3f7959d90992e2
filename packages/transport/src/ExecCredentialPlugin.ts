import { ExecCredentialError } from './ExecCredentialError.js';
import type { KubeConfigCluster, KubeConfigExec } from './kubeConfigData.js';

/** What a plugin gave: a bearer token, or a client certificate and key (PEM). */
export interface ExecCredential {
  readonly token?: string;
  readonly clientCertificateData?: string;
  readonly clientKeyData?: string;
  /** Wall-clock ms since the epoch after which the plugin runs again; `undefined`: kept for the life of the config. */
  readonly expiresAtMs?: number;
}

/** How the plugin runs; the defaults are this process's. */
export interface ExecCredentialPluginOptions {
  /** Wall-clock milliseconds since the epoch (default `Date.now`), compared with `expirationTimestamp`. */
  readonly now?: () => number;
  /** Whether stdin is a terminal the plugin may prompt on (default `process.stdin.isTTY`). */
  readonly stdinIsTTY?: boolean;
  /** The environment the plugin's `env` entries are added to (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
  /** The cluster passed in `KUBERNETES_EXEC_INFO` when `provideClusterInfo` is set (CA as data). */
  readonly cluster?: KubeConfigCluster & { readonly caData?: string };
}

const STDERR_TAIL_BYTES = 2048;

/**
 * A client.authentication.k8s.io exec credential plugin (v1 or v1beta1),
 * as kubectl runs it: `command` with `args`, the process environment plus
 * `env`, `KUBERNETES_EXEC_INFO` describing the request, stdin and stderr on
 * the terminal only in interactive mode. Its credential is kept until its
 * `expirationTimestamp` (for ever without one), and concurrent callers
 * share one run.
 *
 * Easy to get wrong: a failing plugin is run again by the next caller (its
 * failure is not cached), so a broken plugin runs once per request.
 */
export class ExecCredentialPlugin {
  private cached: ExecCredential | undefined;
  private running: Promise<ExecCredential> | undefined;
  private readonly now: () => number;

  constructor(
    private readonly exec: KubeConfigExec,
    private readonly options: ExecCredentialPluginOptions = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  /** The cached credential while it has not expired, else a fresh one from a new run. */
  credential(): Promise<ExecCredential> {
    const cached = this.cached;
    if (cached !== undefined && (cached.expiresAtMs === undefined || this.now() < cached.expiresAtMs)) return Promise.resolve(cached);
    this.running ??= this.run().then(
      (credential) => {
        this.running = undefined;
        this.cached = credential;
        return credential;
      },
      (err: unknown) => {
        this.running = undefined;
        throw err;
      },
    );
    return this.running;
  }

  private async run(): Promise<ExecCredential> {
    const { command, args, apiVersion, interactiveMode } = this.exec;
    const terminal = this.options.stdinIsTTY ?? process.stdin.isTTY === true;
    if (interactiveMode === 'Always' && !terminal) {
      throw new ExecCredentialError(command, 'interactiveMode is Always but stdin is not a terminal', undefined);
    }
    const interactive = interactiveMode !== 'Never' && terminal;
    const env: NodeJS.ProcessEnv = { ...(this.options.env ?? process.env) };
    for (const { name, value } of this.exec.env) env[name] = value;
    env['KUBERNETES_EXEC_INFO'] = JSON.stringify({ apiVersion, kind: 'ExecCredential', spec: this.spec(interactive) });
    const { stdout, stderr, exitCode } = await runProcess(command, args, env, interactive, this.exec.installHint);
    if (exitCode !== 0) {
      const tail = stderr.trim() === '' ? '' : `: ${stderr.trim()}`;
      throw new ExecCredentialError(command, `exited with code ${exitCode}${tail}`, exitCode);
    }
    return this.parse(stdout);
  }

  private spec(interactive: boolean): Record<string, unknown> {
    const cluster = this.options.cluster;
    if (!this.exec.provideClusterInfo || cluster === undefined) return { interactive };
    const info: Record<string, unknown> = { server: cluster.server };
    if (cluster.tlsServerName !== undefined) info['tls-server-name'] = cluster.tlsServerName;
    if (cluster.insecureSkipTlsVerify) info['insecure-skip-tls-verify'] = true;
    if (cluster.caData !== undefined) info['certificate-authority-data'] = cluster.caData;
    if (cluster.proxyUrl !== undefined) info['proxy-url'] = cluster.proxyUrl;
    return { interactive, cluster: info };
  }

  private parse(stdout: string): ExecCredential {
    const { command, apiVersion } = this.exec;
    const bad = (detail: string, cause?: unknown): ExecCredentialError =>
      new ExecCredentialError(command, `printed no valid ExecCredential: ${detail}`, 0, cause);
    let doc: unknown;
    try {
      doc = JSON.parse(stdout);
    } catch (err) {
      throw bad(`stdout is not JSON (${JSON.stringify(stdout.slice(0, 80))})`, err);
    }
    const cred = (typeof doc === 'object' && doc !== null ? doc : {}) as { apiVersion?: unknown; kind?: unknown; status?: unknown };
    if (cred.kind !== 'ExecCredential') throw bad(`kind is ${JSON.stringify(cred.kind)}, not "ExecCredential"`);
    if (cred.apiVersion !== apiVersion)
      throw bad(`apiVersion is ${JSON.stringify(cred.apiVersion)}, the KubeConfig asked for ${apiVersion}`);
    const status = (typeof cred.status === 'object' && cred.status !== null ? cred.status : {}) as Record<string, unknown>;
    const text = (key: string): string | undefined => {
      const value = status[key];
      if (value === undefined || value === null || value === '') return undefined;
      if (typeof value !== 'string') throw bad(`status.${key} is not a string`);
      return value;
    };
    const [token, cert, key, expiry] = [text('token'), text('clientCertificateData'), text('clientKeyData'), text('expirationTimestamp')];
    if ((cert === undefined) !== (key === undefined)) throw bad('status has only one of clientCertificateData and clientKeyData');
    if (token === undefined && cert === undefined) throw bad('status has neither a token nor clientCertificateData and clientKeyData');
    let expiresAtMs: number | undefined;
    if (expiry !== undefined) {
      expiresAtMs = Date.parse(expiry);
      if (Number.isNaN(expiresAtMs)) throw bad(`status.expirationTimestamp ${JSON.stringify(expiry)} is not an RFC 3339 time`);
    }
    return {
      ...(token === undefined ? {} : { token }),
      ...(cert === undefined || key === undefined ? {} : { clientCertificateData: cert, clientKeyData: key }),
      ...(expiresAtMs === undefined ? {} : { expiresAtMs }),
    };
  }
}

function runProcess(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  interactive: boolean,
  installHint: string | undefined,
): Promise<{ stdout: string; stderr: string; exitCode: number }> {
  return new Promise((resolve, reject) => {
    const child = process
      .getBuiltinModule('node:child_process')
      .spawn(command, args, { env, stdio: [interactive ? 'inherit' : 'ignore', 'pipe', interactive ? 'inherit' : 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => {
      err = (err + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
    });
    child.once('error', (e: NodeJS.ErrnoException) => {
      const hint = installHint === undefined ? '' : `\n${installHint}`;
      const detail = e.code === 'ENOENT' ? `not found (is it installed and on PATH?)${hint}` : `could not be started: ${e.message}`;
      reject(new ExecCredentialError(command, detail, undefined, e));
    });
    child.once('close', (code, signal) => {
      if (code === null)
        reject(
          new ExecCredentialError(command, `was killed by ${signal ?? 'a signal'}${err.trim() === '' ? '' : `: ${err.trim()}`}`, undefined),
        );
      else resolve({ stdout: Buffer.concat(out).toString('utf8'), stderr: err, exitCode: code });
    });
  });
}
