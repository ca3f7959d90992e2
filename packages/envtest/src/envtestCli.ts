import { spawn } from 'node:child_process';
import { CliUsageError } from './CliUsageError.js';
import { kubeBuildScript } from './kubeBuildScript.js';

/** What a `protean-envtest` command line asks for. */
export type CliCommand = { kind: 'help' } | { kind: 'build'; printDir: boolean };

/** Where the CLI writes and what environment the build script gets. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  /** The build script to run (default: the one shipped in this package). */
  buildScript?: string;
}

/** Exit status of a command line that could not be parsed. */
export const USAGE_EXIT_CODE = 2;

export const USAGE = `Usage: protean-envtest <command>

Commands:
  build              build kube-apiserver, etcd and kube-controller-manager from Go modules
                     (bash, Go >= 1.26; minutes the first time, cached afterwards) and print
                     their directory on the last stdout line
  build --print-dir  print that directory without building: exit 0 when the binaries are
                     there, 3 when they are not
  help               print this text

Environment: PROTEAN_KUBE_CACHE (cache root, default \${XDG_CACHE_HOME:-~/.cache}/protean/kube-apiserver),
PROTEAN_KUBE_BUILD_JOBS, PROTEAN_KUBE_EXTRA_GOFLAGS, GO (the go binary).
`;

/**
 * Parses the arguments after `protean-envtest`. Throws {@link CliUsageError}
 * naming the first argument it does not understand.
 */
export function parseCliArgs(argv: readonly string[]): CliCommand {
  const [command, ...rest] = argv;
  if (command === undefined) throw new CliUsageError('protean-envtest: no command given (expected build or help)', '');
  if (command === 'help' || command === '--help' || command === '-h') {
    if (rest.length > 0) throw new CliUsageError(`protean-envtest: help takes no arguments, got '${rest[0]}'`, rest[0] ?? '');
    return { kind: 'help' };
  }
  if (command !== 'build') throw new CliUsageError(`protean-envtest: unknown command '${command}' (expected build or help)`, command);
  let printDir = false;
  for (const arg of rest) {
    if (arg === '--print-dir' && !printDir) printDir = true;
    else if (arg === '--help' || arg === '-h') return { kind: 'help' };
    else throw new CliUsageError(`protean-envtest build: unexpected argument '${arg}' (the only option is --print-dir)`, arg);
  }
  return { kind: 'build', printDir };
}

/**
 * Runs a `protean-envtest` command line and resolves with its exit status.
 * `build` runs the shipped build script with bash, streaming its stdout (the
 * binary directory) and stderr (progress) through `io`; its exit status is
 * the script's.
 *
 * Easy to get wrong: the directory is the LAST stdout line, so callers
 * should take `| tail -1` rather than the whole output.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let command: CliCommand;
  try {
    command = parseCliArgs(argv);
  } catch (err) {
    if (!(err instanceof CliUsageError)) throw err;
    io.stderr(`${err.message}\n\n${USAGE}`);
    return USAGE_EXIT_CODE;
  }
  if (command.kind === 'help') {
    io.stdout(USAGE);
    return 0;
  }
  const script = io.buildScript ?? kubeBuildScript();
  return new Promise((resolve) => {
    const child = spawn('bash', [script, ...(command.printDir ? ['--print-dir'] : [])], {
      env: io.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => io.stdout(chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => io.stderr(chunk));
    child.on('error', (err) => {
      io.stderr(`protean-envtest: could not run bash ${script}: ${err.message}\n`);
      resolve(1);
    });
    child.on('close', (code, signal) => {
      if (signal !== null) io.stderr(`protean-envtest: ${script} was killed by ${signal}\n`);
      resolve(code ?? 1);
    });
  });
}
