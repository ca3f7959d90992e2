import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { buildKubeConfig } from './buildKubeConfig.js';
import { forgetOnExit, removeOnExit } from './exitCleanup.js';
import { etcdCompact } from './etcdCompact.js';
import { findKubeBinaries, type KubeBinaries } from './findKubeBinaries.js';
import { freePort } from './freePort.js';
import { httpText, type TlsMaterial } from './httpText.js';
import type { KubeApiServer, KubeApiServerOptions } from './KubeApiServer.js';
import { KubeApiServerStartError } from './KubeApiServerStartError.js';
import { KubeBinariesMissingError } from './KubeBinariesMissingError.js';
import { LogRing } from './LogRing.js';
import { ManagedProcess } from './ManagedProcess.js';
import { TestPki } from './TestPki.js';

const LOG_LINES = 150;
const POLL_MS = 100;
const BIND_ATTEMPTS = 5;

/** Thrown inside a start attempt when the process lost the race for its port. */
class PortTakenError extends Error {
  override readonly name = 'PortTakenError';
}

/** Resolves after `ms`, or as soon as `proc` exits. */
function pause(ms: number, proc: ManagedProcess): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([new Promise((r) => (timer = setTimeout(r, ms))), proc.exited]).finally(() => clearTimeout(timer));
}

class RealKubeApiServer implements KubeApiServer {
  readonly url: string;
  readonly etcdUrl: string;
  private apiServer: ManagedProcess | undefined;
  private controllerManager: ManagedProcess | undefined;
  private readonly controllerManagerLog = new LogRing(LOG_LINES);
  private stopping: Promise<void> | undefined;
  private readonly tls: TlsMaterial;

  constructor(
    private readonly bins: KubeBinaries,
    private readonly dir: string,
    private readonly pki: TestPki,
    private readonly etcd: ManagedProcess,
    private readonly apiLog: LogRing,
    private readonly port: number,
    private readonly extraArgs: readonly string[],
    private readonly watchCache: boolean,
    private readonly startTimeoutMs: number,
    etcdPort: number,
  ) {
    this.url = `https://127.0.0.1:${port}`;
    this.etcdUrl = `http://127.0.0.1:${etcdPort}`;
    this.tls = { ca: pki.caPem, cert: pki.admin.certPem, key: pki.admin.keyPem };
  }

  get kubeConfig(): KubeConfig {
    return buildKubeConfig(this.url, this.pki.caPem, 'admin', this.pki.admin.certPem, this.pki.admin.keyPem);
  }

  kubeConfigFor(user: string, groups: readonly string[] = []): KubeConfig {
    const { certPem, keyPem } = this.pki.issueClientCert(user, groups);
    return buildKubeConfig(this.url, this.pki.caPem, user, certPem, keyPem);
  }

  logs(): string {
    const kcm = this.controllerManager === undefined ? '' : `\n--- kube-controller-manager ---\n${this.controllerManagerLog.text()}`;
    return `--- etcd ---\n${this.etcd.log.text()}\n--- kube-apiserver ---\n${this.apiLog.text()}${kcm}`;
  }

  /**
   * Starts kube-controller-manager with `controllers` against this server
   * (admin credentials, no leader election, no serving port). It has no
   * readiness signal of its own: tests wait for its effects.
   */
  async startControllerManager(controllers: readonly string[]): Promise<void> {
    const bin = this.bins.kubeControllerManager;
    if (bin === undefined) {
      throw new KubeBinariesMissingError(
        dirname(this.bins.kubeApiServer),
        ['kube-controller-manager'],
        'needed for the controllers option',
      );
    }
    const kubeconfig = join(this.dir, 'controller-manager.kubeconfig');
    await writeFile(kubeconfig, this.kubeConfig.exportConfig(), { mode: 0o600 });
    this.controllerManager = new ManagedProcess(
      'kube-controller-manager',
      bin,
      [`--kubeconfig=${kubeconfig}`, `--controllers=${controllers.join(',')}`, '--leader-elect=false', '--secure-port=0'],
      this.controllerManagerLog,
    );
  }

  compact(): Promise<number> {
    this.assertRunning('compact');
    return etcdCompact(this.etcdUrl);
  }

  /** Starts kube-apiserver on `this.port` and waits for /readyz; retries while the port is taken. */
  async startApiServer(deadline: number, bindAttempts: number): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const proc = new ManagedProcess('kube-apiserver', this.bins.kubeApiServer, this.apiServerArgs(), this.apiLog);
      this.apiServer = proc;
      try {
        await this.waitReady(proc, deadline, async () => {
          const r = await httpText(`${this.url}/readyz`, { tls: this.tls, timeoutMs: 5000 });
          return r.status === 200 && r.body.trim() === 'ok';
        });
        return;
      } catch (err) {
        await proc.stop();
        if (!(err instanceof PortTakenError) || attempt >= bindAttempts || Date.now() > deadline) throw this.startError(err);
      }
    }
  }

  private apiServerArgs(): string[] {
    const p = this.pki;
    return [
      `--etcd-servers=${this.etcdUrl}`,
      `--cert-dir=${join(this.dir, 'apiserver-certs')}`,
      `--tls-cert-file=${p.servingCert}`,
      `--tls-private-key-file=${p.servingKey}`,
      `--secure-port=${this.port}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--client-ca-file=${p.caCert}`,
      '--authorization-mode=RBAC',
      `--service-account-issuer=https://127.0.0.1:${this.port}/`,
      `--service-account-key-file=${p.saPublicKey}`,
      `--service-account-signing-key-file=${p.saPrivateKey}`,
      '--service-cluster-ip-range=10.0.0.0/24',
      '--allow-privileged=true',
      '--disable-admission-plugins=ServiceAccount',
      '--endpoint-reconciler-type=none',
      // Without a grace period an open watch makes SIGTERM wait 15 s for the kill;
      // 2 s lets restart() finish in a few seconds while watches drain.
      '--shutdown-watch-termination-grace-period=2s',
      // Tests decide when history is compacted (see compact()).
      '--etcd-compaction-interval=0',
      `--watch-cache=${this.watchCache}`,
      ...this.extraArgs,
    ];
  }

  /** Polls `probe` until true; throws PortTakenError / a start error when `proc` exits or time runs out. */
  async waitReady(proc: ManagedProcess, deadline: number, probe: () => Promise<boolean>): Promise<void> {
    for (;;) {
      if (!proc.running) {
        if (proc.wrote('address already in use')) throw new PortTakenError(`${proc.name} could not bind its port`);
        throw new Error(`${proc.name} exited before it was ready`);
      }
      try {
        if (await probe()) return;
      } catch {
        // Not listening yet.
      }
      if (Date.now() > deadline) throw new Error(`${proc.name} was not ready in time (raise startTimeoutMs if the machine is busy)`);
      await pause(POLL_MS, proc);
    }
  }

  /** Waits until the system namespaces controller created `default`, which most tests write into. */
  async waitForDefaultNamespace(deadline: number): Promise<void> {
    const proc = this.apiServer as ManagedProcess;
    await this.waitReady(proc, deadline, async () => {
      const r = await httpText(`${this.url}/api/v1/namespaces/default`, { tls: this.tls });
      return r.status === 200;
    }).catch((err: unknown) => {
      throw this.startError(err);
    });
  }

  startError(err: unknown): KubeApiServerStartError {
    if (err instanceof KubeApiServerStartError) return err;
    return new KubeApiServerStartError(`kube-apiserver on ${this.url}: ${(err as Error).message}`, this.logs(), { cause: err });
  }

  private assertRunning(what: string): void {
    if (this.stopping !== undefined) throw new Error(`cannot ${what}: the kube-apiserver harness on ${this.url} was stopped`);
  }

  async restart(options: { readonly kill?: boolean } = {}): Promise<void> {
    this.assertRunning('restart');
    this.apiLog.push(`[harness] restarting kube-apiserver${options.kill === true ? ' (SIGKILL)' : ''}`);
    if (options.kill === true) await this.apiServer?.kill();
    else await this.apiServer?.stop();
    // The port was just released by the old process; retry briefly should something else grab it.
    await this.startApiServer(Date.now() + this.startTimeoutMs, BIND_ATTEMPTS);
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      // The controller manager first, then kube-apiserver: each would otherwise log connection errors and retry.
      await this.controllerManager?.stop();
      await this.apiServer?.stop();
      await this.etcd.stop();
      await rm(this.dir, { recursive: true, force: true });
      forgetOnExit(this.dir);
    })();
    return this.stopping;
  }
}

async function startEtcd(bin: string, dir: string, log: LogRing, deadline: number): Promise<{ proc: ManagedProcess; port: number }> {
  for (let attempt = 1; ; attempt++) {
    const clientPort = await freePort();
    let peerPort = await freePort();
    while (peerPort === clientPort) peerPort = await freePort();
    // A fresh data dir per attempt: a failed one may have recorded the old peer URL.
    const dataDir = join(dir, `etcd-data-${attempt}`);
    const client = `http://127.0.0.1:${clientPort}`;
    const peer = `http://127.0.0.1:${peerPort}`;
    const proc = new ManagedProcess(
      'etcd',
      bin,
      [
        '--name=protean',
        `--data-dir=${dataDir}`,
        `--listen-client-urls=${client}`,
        `--advertise-client-urls=${client}`,
        `--listen-peer-urls=${peer}`,
        `--initial-advertise-peer-urls=${peer}`,
        `--initial-cluster=protean=${peer}`,
        '--unsafe-no-fsync=true',
        '--log-level=warn',
      ],
      log,
    );
    try {
      for (;;) {
        if (!proc.running) {
          if (proc.wrote('address already in use') && attempt < BIND_ATTEMPTS) throw new PortTakenError('etcd could not bind');
          throw new KubeApiServerStartError(`etcd exited before it was healthy`, log.text());
        }
        const health = await httpText(`${client}/health`, { timeoutMs: 2000 }).catch(() => undefined);
        if (health?.status === 200 && (JSON.parse(health.body) as { health?: string }).health === 'true') return { proc, port: clientPort };
        if (Date.now() > deadline)
          throw new KubeApiServerStartError('etcd was not healthy in time (raise startTimeoutMs if the machine is busy)', log.text());
        await pause(POLL_MS, proc);
      }
    } catch (err) {
      await proc.stop();
      await rm(dataDir, { recursive: true, force: true });
      if (!(err instanceof PortTakenError)) throw err;
    }
  }
}

/**
 * Starts etcd and kube-apiserver (binaries from {@link findKubeBinaries})
 * on free loopback ports, with certificates made by `openssl` in a fresh
 * temp dir; resolves once `/readyz` is ok and the `default` namespace
 * exists. Flags are envtest-like (RBAC, client-certificate auth, no
 * ServiceAccount admission, no endpoint reconciler) and the API server's
 * periodic etcd compaction is off, so only {@link KubeApiServer.compact}
 * expires resourceVersions. With `controllers`, kube-controller-manager
 * then runs those controllers (e.g. the garbage collector) against it.
 *
 * Easy to get wrong: it takes a few seconds and ~320 MB of RAM; start one
 * per test file (`beforeAll`) and always `await server.stop()` in
 * `afterAll`. Children are SIGKILLed if Node exits without that.
 */
export async function startKubeApiServer(opts: KubeApiServerOptions = {}): Promise<KubeApiServer> {
  const bins = findKubeBinaries(opts.binDir);
  const startTimeoutMs = opts.startTimeoutMs ?? 90_000;
  const deadline = Date.now() + startTimeoutMs;
  const dir = await mkdtemp(join(tmpdir(), 'protean-kube-'));
  removeOnExit(dir);
  let etcd: ManagedProcess | undefined;
  let server: RealKubeApiServer | undefined;
  try {
    const pkiDir = join(dir, 'pki');
    await mkdir(pkiDir);
    const pki = await TestPki.create(pkiDir);
    const tracingArgs = opts.tracing === undefined ? [] : [`--tracing-config-file=${await writeTracingConfig(dir, opts.tracing)}`];
    const etcdLog = new LogRing(LOG_LINES);
    const started = await startEtcd(bins.etcd, dir, etcdLog, deadline);
    etcd = started.proc;
    const apiLog = new LogRing(LOG_LINES);
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      server = new RealKubeApiServer(
        bins,
        dir,
        pki,
        etcd,
        apiLog,
        port,
        [...tracingArgs, ...(opts.extraArgs ?? [])],
        opts.watchCache ?? true,
        startTimeoutMs,
        started.port,
      );
      try {
        // One try per port here: a taken port is replaced by a new one.
        await server.startApiServer(deadline, 1);
        break;
      } catch (err) {
        // startApiServer retried the same port; on start we may pick another.
        const portTaken = (err as Error).cause instanceof PortTakenError;
        if (!portTaken || attempt >= BIND_ATTEMPTS) throw err;
      }
    }
    await server.waitForDefaultNamespace(deadline);
    if (opts.controllers !== undefined && opts.controllers.length > 0) await server.startControllerManager(opts.controllers);
    return server;
  } catch (err) {
    if (server !== undefined) await server.stop();
    else {
      await etcd?.stop();
      await rm(dir, { recursive: true, force: true });
      forgetOnExit(dir);
    }
    throw err;
  }
}

/** Writes kube-apiserver's TracingConfiguration into `dir`; returns its path. */
async function writeTracingConfig(dir: string, tracing: NonNullable<KubeApiServerOptions['tracing']>): Promise<string> {
  const path = join(dir, 'tracing-config.yaml');
  const rate = tracing.samplingRatePerMillion ?? 1_000_000;
  const text = [
    'apiVersion: apiserver.config.k8s.io/v1',
    'kind: TracingConfiguration',
    `endpoint: ${JSON.stringify(tracing.endpoint)}`,
    `samplingRatePerMillion: ${rate}`,
    '',
  ].join('\n');
  await writeFile(path, text);
  return path;
}
