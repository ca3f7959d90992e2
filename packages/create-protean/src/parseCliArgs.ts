import { parseArgs } from 'node:util';
import { InvalidOptionError } from './InvalidOptionError.js';
import { UsageError } from './UsageError.js';

/** The command line of `create-protean`, parsed. */
export interface CliArgs {
  readonly directory?: string;
  readonly name?: string;
  readonly layout?: string;
  readonly group?: string;
  readonly kind?: string;
  readonly proteanVersion?: string;
  readonly plural?: string;
  readonly from?: string;
  /** Add a validating and a defaulting webhook for the parent kind. */
  readonly webhooks?: boolean;
  /** Ask nothing: take the defaults for what is not given. */
  readonly yes: boolean;
  readonly help: boolean;
}

/** `create-protean --help`. */
export const USAGE: string = `Usage: npm create protean@latest [directory] -- [options]
       create-protean [directory] [options]

Creates a dynamic Kubernetes controller project on Protean: the controller,
its Jest tests, a Dockerfile and a kustomize base in deploy/.

Options:
  --layout <layout>          leader-election (default: 2 replicas, one leads) or sharding
  --sharding                 the same as --layout sharding
  --name <name>              package and controller name (default: the directory's name)
  --group <group>            API group of the parent resource (default: <name>.example.com)
  --kind <Kind>              kind of the parent resource (default: Widget)
  --plural <plural>          its resource name (default: an English plural of the kind, e.g. policies)
  --protean-version <range>  range of every @protean/* dependency (default: ^ each one's version)
  --webhooks                 add a validating and a defaulting admission webhook for the kind, served by
                             every replica, with its Service, self-managed certificate and RBAC
  --from <dir>               install @protean/* from the tarballs in <dir> (pnpm pack:all in a
                             checkout writes packed/), copied into the project's vendor/
  -y, --yes                  ask nothing, use the defaults (also when stdin is not a terminal)
  -h, --help                 show this help`;

/** Parses `argv` (without node and the script); an unknown flag or a flag without its value is a {@link UsageError}, a second directory an {@link InvalidOptionError}. */
export function parseCliArgs(argv: readonly string[]): CliArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        layout: { type: 'string' },
        sharding: { type: 'boolean', default: false },
        name: { type: 'string' },
        group: { type: 'string' },
        kind: { type: 'string' },
        'protean-version': { type: 'string' },
        plural: { type: 'string' },
        from: { type: 'string' },
        webhooks: { type: 'boolean', default: false },
        yes: { type: 'boolean', short: 'y', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    // Read the message by duck type: Node's errors come from another realm under Jest.
    const message = (err as { message?: unknown } | null)?.message;
    throw new UsageError(`${typeof message === 'string' ? message : String(err)} (see --help)`, { cause: err });
  }
  const { values, positionals } = parsed;
  if (values.sharding && values.layout !== undefined && values.layout !== 'sharding')
    throw new InvalidOptionError('layout', values.layout, '--sharding asks for the sharding layout: give one of them');
  const layout = values.sharding ? 'sharding' : values.layout;
  if (positionals.length > 1)
    throw new InvalidOptionError('directory', positionals.join(' '), 'give one directory (quote a path with spaces)');
  const optional = <K extends string>(key: K, value: string | undefined): { [P in K]?: string } =>
    (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
  return {
    ...optional('directory', positionals[0]),
    ...optional('name', values.name),
    ...optional('layout', layout),
    ...optional('group', values.group),
    ...optional('kind', values.kind),
    ...optional('proteanVersion', values['protean-version']),
    ...optional('plural', values.plural),
    ...optional('from', values.from),
    ...(values.webhooks ? { webhooks: true } : {}),
    yes: values.yes,
    help: values.help,
  };
}
