import type { Logger } from '@protean/core';
import { ProteanKubeConfig } from '@protean/transport';
import { pino, type DestinationStream, type Level } from 'pino';
import { parseCliArgs, USAGE, UsageError } from './cli.js';
import { runCluster } from './runCluster.js';
import type { HeldDemo } from './runDemo.js';

/** Where the CLI reads its environment and writes its output. */
export interface CliIo {
  /** Human-readable lines (stdout). */
  out(line: string): void;
  /** Errors and usage problems (stderr). */
  err(line: string): void;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Aborted on SIGINT/SIGTERM; stops a cluster (or `--serve`) run gracefully. */
  readonly stop: AbortSignal;
  /** Where the controller's pino JSON logs go; default stderr. */
  readonly logDestination?: DestinationStream;
  /** Called once a cluster run reconciles (tests wait for it). */
  readonly onClusterReady?: (metricsUrl: string) => void;
  /** Called once `--hold` holds the scripted demo (tests drive it through this). */
  readonly onDemoHold?: (held: HeldDemo) => void;
}

/**
 * The command line as a function: parses `argv`, runs the in-memory demo or
 * the controller against a cluster, and resolves with the exit code
 * (0 success, 1 failure, 2 bad arguments). It never calls `process.exit`.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let command;
  try {
    command = parseCliArgs(argv, io.env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(`error: ${err.message}`);
    io.err('run with --help for usage');
    return 2;
  }
  if (command.mode === 'help') {
    io.out(USAGE);
    return 0;
  }
  const defaultLevel: Level = command.mode === 'demo' || command.mode === 'replicas' ? 'warn' : 'info';
  const level = command.verbose ? 'debug' : (io.env['LOG_LEVEL'] ?? defaultLevel);
  const logger: Logger = pino(
    { level, base: { app: 'protean-webapp-example' } },
    io.logDestination ?? pino.destination({ dest: 2, sync: true }),
  );
  // Registered before the controller starts, so its first passes are traced; flushed and unregistered at the end.
  // The SDK is loaded only for --trace.
  const tracing =
    command.mode === 'replicas' || !command.trace ? undefined : (await import('./demoTracing.js')).startDemoTracing(io.env, io.out);
  try {
    // The demos (and the in-memory API server) use client-node's generated API: loaded only when one runs, so the
    // controller against a cluster never loads @kubernetes/client-node.
    if (command.mode === 'demo') {
      const { runDemo } = await import('./runDemo.js');
      const summary = await runDemo({
        out: io.out,
        logger,
        stepTimeoutMs: command.stepTimeoutMs,
        metricsPort: command.metricsPort,
        metricsHost: command.metricsHost,
        statusPage: command.statusPage,
        ...(tracing === undefined ? {} : { recentPasses: tracing.recentPasses }),
        ...(command.hold ? { hold: io.stop } : {}),
        ...(io.onDemoHold === undefined ? {} : { onHold: io.onDemoHold }),
      });
      return summary.ok ? 0 : 1;
    }
    if (command.mode === 'replicas') {
      const { runReplicas } = await import('./runReplicas.js');
      const summary = await runReplicas({
        out: io.out,
        // The replicas log pino JSON at the same level, passed through to stderr.
        replicaLog: io.err,
        logLevel: level,
        replicas: command.replicas,
        stepTimeoutMs: command.stepTimeoutMs,
        signal: io.stop,
      });
      return summary.ok ? 0 : 1;
    }
    if (command.mode === 'serve') {
      const { InMemoryApiServer } = await import('@protean/in-memory-apiserver');
      const server = await InMemoryApiServer.start();
      try {
        io.out(`in-memory Kubernetes API server listening at ${server.url}`);
        await runCluster({
          kubeConfig: server.kubeConfig(),
          out: io.out,
          logger,
          metricsPort: command.metricsPort,
          metricsHost: command.metricsHost,
          statusPage: command.statusPage,
          ...(tracing === undefined ? {} : { recentPasses: tracing.recentPasses }),
          stop: io.stop,
          ...(io.onClusterReady === undefined ? {} : { onReady: io.onClusterReady }),
        });
      } finally {
        await server.stop();
      }
      return 0;
    }
    const source = command.kubeconfig ?? `KUBECONFIG=${io.env['KUBECONFIG'] ?? ''}`;
    const kubeConfig = new ProteanKubeConfig();
    try {
      if (command.kubeconfig !== undefined) kubeConfig.loadFromFile(command.kubeconfig);
      else kubeConfig.loadFromDefault({ env: io.env });
    } catch (err) {
      // A KubeConfigError names the file (or KUBECONFIG) itself.
      io.err(`error: cannot load kubeconfig: ${messageOf(err)}`);
      return 1;
    }
    if (kubeConfig.getCurrentCluster() === null) {
      io.err(`error: kubeconfig ${source} has no current cluster`);
      return 1;
    }
    await runCluster({
      kubeConfig,
      out: io.out,
      logger,
      metricsPort: command.metricsPort,
      metricsHost: command.metricsHost,
      statusPage: command.statusPage,
      ...(tracing === undefined ? {} : { recentPasses: tracing.recentPasses }),
      stop: io.stop,
      ...(io.onClusterReady === undefined ? {} : { onReady: io.onClusterReady }),
    });
    return 0;
  } catch (err) {
    io.err(`error: ${messageOf(err)}`);
    // The line above says what failed; the stack is there for --verbose.
    logger.debug({ err }, 'run failed');
    return 1;
  } finally {
    await tracing?.stop();
  }
}

/** The message of anything thrown (`instanceof Error` fails for errors from another realm, e.g. under Jest). */
function messageOf(err: unknown): string {
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(err);
}
