import * as prompts from '@clack/prompts';
import { relative, resolve } from 'node:path';
import { generateProject, type GeneratedProject } from './generateProject.js';
import { LAYOUTS, type Layout } from './Layout.js';
import { parseCliArgs, USAGE } from './parseCliArgs.js';
import { resolveProject, type GenerateOptions } from './resolveProject.js';

/** Where {@link runCli} talks to: the terminal in the bin, strings in tests. */
export interface CliIo {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  /** Whether to ask for what the flags leave open (stdin and stdout are terminals). */
  readonly interactive: boolean;
  /** The current directory, to show paths relative to it. */
  readonly cwd: string;
  /** Asks the questions; default the terminal prompts of `@clack/prompts`. */
  readonly ask?: Asker;
  /** The Node.js running the generator (`process.version` by default), to warn when it is older than the project needs. */
  readonly nodeVersion?: string;
}

/** The oldest Node.js major a generated project runs on (its `engines`; `@kubernetes/client-node` 2.x needs it). */
export const PROJECT_NODE_MAJOR = 24;

/** The two questions `create-protean` may ask; `undefined` when the user cancelled. */
export interface Asker {
  directory(defaultValue: string, validate: (value: string) => string | undefined): Promise<string | undefined>;
  layout(): Promise<Layout | undefined>;
}

/** The default directory when none is given and nothing may be asked. */
export const DEFAULT_DIRECTORY = 'my-controller';

/**
 * The whole `create-protean` command: parses `argv`, asks for the directory
 * and layout when the flags leave them open and `io.interactive`, generates
 * the project and prints the next steps. Resolves with the exit code; a bad
 * option is printed as its error's message (exit 1), never thrown.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const args = parseCliArgs(argv);
    if (args.help) {
      io.out(USAGE);
      return 0;
    }
    const ask = args.yes || !io.interactive ? undefined : (io.ask ?? clackAsker());
    const { yes: _yes, help: _help, directory: given, layout: givenLayout, ...rest } = args;
    let directory = given;
    if (directory === undefined && ask !== undefined) {
      directory = await ask.directory(DEFAULT_DIRECTORY, (value) =>
        problemWith({ ...rest, directory: resolve(io.cwd, value || DEFAULT_DIRECTORY) }),
      );
      if (directory === undefined) return cancelled(io);
    }
    let layout = givenLayout;
    if (layout === undefined && ask !== undefined) {
      layout = await ask.layout();
      if (layout === undefined) return cancelled(io);
    }
    const options: GenerateOptions = {
      ...rest,
      directory: resolve(io.cwd, directory || DEFAULT_DIRECTORY),
      ...(layout === undefined ? {} : { layout }),
      ...(rest.from === undefined ? {} : { from: resolve(io.cwd, rest.from) }),
    };
    nextSteps(generateProject(options), io);
    return 0;
  } catch (err) {
    io.err(err instanceof Error ? `${err.name}: ${err.message}` : String(err));
    return 1;
  }
}

function problemWith(options: GenerateOptions): string | undefined {
  try {
    resolveProject(options);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

function cancelled(io: CliIo): number {
  io.err('cancelled: nothing was written');
  return 1;
}

function nextSteps({ project, files }: GeneratedProject, io: CliIo): void {
  const where = relative(io.cwd, project.directory) || '.';
  io.out(`Created ${project.name} (${project.layout}, ${project.kind}.${project.group}) in ${where}: ${files.length} files.`);
  io.out('');
  const nodeVersion = io.nodeVersion ?? process.version;
  if (Number(nodeVersion.replace(/^v/, '').split('.')[0]) < PROJECT_NODE_MAJOR) {
    io.out(
      `Note: the project needs Node.js ${PROJECT_NODE_MAJOR} or later (its engines); this is ${nodeVersion}. Install Node.js ${PROJECT_NODE_MAJOR} before npm install, ` +
        'or, to stay on Node.js 20.19+, run npm install @kubernetes/client-node@1.4 after it (client-node 2.x needs Node.js 22.19+; ' +
        'without 1.4 the first test stops with ClientNodeRuntimeError).',
    );
    io.out('');
  }
  io.out('Next:');
  if (where !== '.') io.out(`  cd ${where}`);
  io.out('  npm install');
  io.out('  npm test');
  io.out(`  docker build -t ${project.name}:0.1.0 .`);
  io.out('  kubectl apply -k deploy/');
}

function clackAsker(): Asker {
  return {
    async directory(defaultValue, validate) {
      const answer = await prompts.text({
        message: 'Where should the project go?',
        placeholder: defaultValue,
        defaultValue,
        validate: (value) => validate(value ?? ''),
      });
      return prompts.isCancel(answer) ? undefined : answer;
    },
    async layout() {
      const answer = await prompts.select<Layout>({
        message: 'How should replicas share the work?',
        initialValue: LAYOUTS[0],
        options: [
          { value: 'leader-election', label: 'leader election', hint: '2 replicas: one reconciles, one stands by' },
          { value: 'sharding', label: 'sharding', hint: 'every replica reconciles its share of the namespaces' },
        ],
      });
      return prompts.isCancel(answer) ? undefined : answer;
    },
  };
}
