/** The command-line usage, printed by `--help`. */
export const USAGE = `Usage: pnpm demo [-- options]        (or: node dist/main.js [options])

A kro-like dynamic controller built on Protean. Parent kinds (WebApp, WebSite)
are defined at runtime; each instance gets a ConfigMap <name>-config and a
status counting the ConfigMaps labelled app=<name>.

Modes:
  (default)            start an in-memory Kubernetes API server in this process,
                       run a scripted scenario against the controller, print a
                       summary; exit 0 when every step converged, 1 otherwise
                       (with --hold: then keep running until Ctrl-C)
  --kubeconfig FILE    run the controller against a real cluster (also when
                       KUBECONFIG is set): define the CRDs, reconcile WebApps,
                       serve metrics, run until Ctrl-C (SIGINT/SIGTERM)
  --serve              the same against an in-memory API server started in
                       this process (no scenario), until Ctrl-C (SIGINT/SIGTERM)
  --replicas N         sharding on an in-memory API server: N replicas (child
                       processes, one member Lease each) split 36 WebApps over
                       12 namespaces; one is killed with SIGKILL and the others
                       take its share over; exit 0 when all converged, 1 if not

Options:
  --kubeconfig FILE        kubeconfig of the cluster to run against
  --in-memory              run the in-memory scenario even when KUBECONFIG is set
  --serve                  run the controller against an in-memory API server
                           until SIGINT/SIGTERM (ignores KUBECONFIG)
  --metrics-port N         port of /metrics, /healthz, /readyz and the status
                           page /statusz (cluster: 9464; in-memory: a free port)
  --metrics-host ADDR      address the metrics server binds
                           (cluster: 0.0.0.0; in-memory: 127.0.0.1)
  --replicas N             number of replicas of the sharding demo, 2 to 12
                           (ignores KUBECONFIG)
  --step-timeout-ms N      bounded wait of each scenario step or replica-demo
                           phase (default 10000)
  --hold                   after the scripted scenario, register WebApp again
                           and keep the controller, the API server and the
                           status page running until Ctrl-C, to look at them
  --no-status-page         do not serve the status page (/statusz: instances,
                           watches, queue, explain); it shows object names,
                           labels and errors to whoever reaches the port
  --verbose                controller logs at debug level (pino JSON on stderr)
  --trace                  OpenTelemetry spans of every pass: exported by OTLP
                           when OTEL_EXPORTER_OTLP_ENDPOINT is set, else printed
                           as a compact span tree per pass (not with --replicas)
  -h, --help               print this help

Exit codes: 0 success, 1 failure, 2 bad arguments.`;

/** What the command line asks for. */
export type CliCommand =
  | { readonly mode: 'help' }
  | {
      readonly mode: 'demo';
      readonly metricsPort: number;
      readonly metricsHost: string;
      readonly stepTimeoutMs: number;
      readonly verbose: boolean;
      /** Record OpenTelemetry spans (printed, or exported by OTLP). */
      readonly trace: boolean;
      /** Serve the status page on the metrics port. */
      readonly statusPage: boolean;
      /** After the scenario, keep running (WebApp registered again) until stopped. */
      readonly hold: boolean;
    }
  | {
      readonly mode: 'cluster';
      /** The kubeconfig file; undefined means the client's default lookup (`KUBECONFIG`). */
      readonly kubeconfig: string | undefined;
      readonly metricsPort: number;
      readonly metricsHost: string;
      readonly verbose: boolean;
      readonly trace: boolean;
      readonly statusPage: boolean;
    }
  | {
      /** The sharding demo: N replicas on an in-memory API server, one killed. */
      readonly mode: 'replicas';
      readonly replicas: number;
      readonly stepTimeoutMs: number;
      readonly verbose: boolean;
    }
  | {
      /** Cluster mode against an in-memory API server: runs until stopped. */
      readonly mode: 'serve';
      readonly metricsPort: number;
      readonly metricsHost: string;
      readonly verbose: boolean;
      readonly trace: boolean;
      readonly statusPage: boolean;
    };

/** A bad command line; the message names the argument. The CLI exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

const VALUE_OPTIONS = new Set(['--kubeconfig', '--metrics-port', '--metrics-host', '--step-timeout-ms', '--replicas']);
const FLAG_OPTIONS = new Set(['--in-memory', '--serve', '--verbose', '--trace', '--hold', '--no-status-page', '--help', '-h']);

/**
 * Parses the command line (`--name value` or `--name=value`). A bare `--`
 * is ignored, since `pnpm demo -- ...` may pass it through.
 *
 * Easy to get wrong: a set `KUBECONFIG` selects cluster mode on its own;
 * `--in-memory` and `--serve` override it.
 */
export function parseCliArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): CliCommand {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') continue;
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    if (FLAG_OPTIONS.has(name)) {
      if (name !== arg) throw new UsageError(`option ${name} takes no value (got ${JSON.stringify(arg)})`);
      flags.add(name);
    } else if (VALUE_OPTIONS.has(name)) {
      const value = name !== arg ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined || value === '' || (name === arg && value.startsWith('--'))) {
        throw new UsageError(`option ${name} needs a value`);
      }
      values.set(name, value);
    } else {
      throw new UsageError(`unknown ${arg.startsWith('-') ? 'option' : 'argument'} ${JSON.stringify(arg)}`);
    }
  }
  if (flags.has('--help') || flags.has('-h')) return { mode: 'help' };

  const kubeconfig = values.get('--kubeconfig');
  const inMemory = flags.has('--in-memory');
  if (inMemory && kubeconfig !== undefined) throw new UsageError('--in-memory and --kubeconfig exclude each other');
  const verbose = flags.has('--verbose');
  if (values.has('--replicas')) {
    if (flags.has('--trace')) throw new UsageError('--trace applies to one controller in this process; it excludes --replicas');
    return replicasCommand(values, flags, verbose);
  }
  const trace = flags.has('--trace');
  const statusPage = !flags.has('--no-status-page');
  const hold = flags.has('--hold');
  if (flags.has('--serve')) {
    if (hold) throw new UsageError('--hold applies to the scripted scenario; --serve runs until Ctrl-C anyway');
    if (kubeconfig !== undefined) throw new UsageError('--serve runs against an in-memory API server; it excludes --kubeconfig');
    if (values.has('--step-timeout-ms')) throw new UsageError('--step-timeout-ms applies to the in-memory scenario only');
    return {
      mode: 'serve',
      metricsPort: integer(values, '--metrics-port', 0, 0, 65535),
      metricsHost: values.get('--metrics-host') ?? '127.0.0.1',
      verbose,
      trace,
      statusPage,
    };
  }
  const cluster = kubeconfig !== undefined || (!inMemory && (env['KUBECONFIG'] ?? '') !== '');
  const metricsPort = integer(values, '--metrics-port', cluster ? 9464 : 0, 0, 65535);
  const metricsHost = values.get('--metrics-host') ?? (cluster ? '0.0.0.0' : '127.0.0.1');
  if (cluster) {
    if (values.has('--step-timeout-ms')) throw new UsageError('--step-timeout-ms applies to the in-memory scenario only');
    if (hold) throw new UsageError('--hold applies to the scripted scenario; a cluster run lasts until Ctrl-C anyway');
    return { mode: 'cluster', kubeconfig, metricsPort, metricsHost, verbose, trace, statusPage };
  }
  const stepTimeoutMs = integer(values, '--step-timeout-ms', 10_000, 1, 600_000);
  return { mode: 'demo', metricsPort, metricsHost, stepTimeoutMs, verbose, trace, statusPage, hold };
}

/** The sharding demo needs a replica to kill and one to take over; it has 12 namespaces to share. */
const MIN_REPLICAS = 2;
const MAX_REPLICAS = 12;

/** `--replicas N`: the sharding demo, always on an in-memory API server. */
function replicasCommand(values: Map<string, string>, flags: Set<string>, verbose: boolean): CliCommand {
  for (const other of ['--kubeconfig', '--metrics-port', '--metrics-host']) {
    if (values.has(other)) throw new UsageError(`--replicas runs on an in-memory API server; it excludes ${other}`);
  }
  if (flags.has('--serve')) throw new UsageError('--replicas and --serve exclude each other');
  for (const flag of ['--hold', '--no-status-page']) {
    if (flags.has(flag)) throw new UsageError(`--replicas serves no status page and ends on its own; it excludes ${flag}`);
  }
  const replicas = integer(values, '--replicas', 0, MIN_REPLICAS, MAX_REPLICAS);
  return { mode: 'replicas', replicas, stepTimeoutMs: integer(values, '--step-timeout-ms', 10_000, 1, 600_000), verbose };
}

function integer(values: Map<string, string>, name: string, fallback: number, min: number, max: number): number {
  const text = values.get(name);
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < min || n > max) {
    throw new UsageError(`option ${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`);
  }
  return n;
}
