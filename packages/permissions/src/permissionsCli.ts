import { compareWithRbac } from './compareWithRbac.js';
import { permissionsUsed, type AccessLogJson } from './permissionsUsed.js';
import { toRbacYaml } from './toRbacYaml.js';

/** Where the CLI reads from and writes to; tests pass their own. */
export interface PermissionsCliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** GETs a URL and resolves with its status and body (default: `fetch`). */
  fetchText?(url: string): Promise<{ status: number; body: string }>;
  /** Reads a file as UTF-8 (for `--compare`). */
  readFile?(path: string): Promise<string>;
}

export const PERMISSIONS_USAGE = `Usage: protean-permissions <status-server-url> --name <name> --namespace <namespace>
                           [--service-account <name>] [--compare <rbac.yaml>]

Reads the permissions a running controller used from <status-server-url>/statusz/permissions
(@protean/metrics' server, instrumentContainer(container, { connectionPool })) and prints a Role
(accesses only ever in <namespace>), a ClusterRole (the rest) and their bindings to the
ServiceAccount <namespace>/<service-account> (default <name>) as YAML.

  --compare <file>  instead, compare with the RBAC manifests in <file> both ways: print what the
                    controller used that they do not grant (missing) and what they grant that it
                    did not use (unused; * rules marked wide); exit 1 when either is not empty
`;

/** Exit status of a command line that could not be parsed. */
export const PERMISSIONS_USAGE_EXIT_CODE = 2;

interface CliArgs {
  readonly url: string;
  readonly name: string;
  readonly namespace: string;
  readonly serviceAccount: string | undefined;
  readonly compare: string | undefined;
}

/** Runs a `protean-permissions` command line; resolves with its exit status. */
export async function runPermissionsCli(argv: readonly string[], io: PermissionsCliIo): Promise<number> {
  let args: CliArgs | 'help';
  try {
    args = parseArgs(argv);
  } catch (err) {
    io.stderr(`${(err as Error).message}\n\n${PERMISSIONS_USAGE}`);
    return PERMISSIONS_USAGE_EXIT_CODE;
  }
  if (args === 'help') {
    io.stdout(PERMISSIONS_USAGE);
    return 0;
  }
  const fetchText =
    io.fetchText ??
    (async (url: string) => {
      const res = await fetch(url);
      return { status: res.status, body: await res.text() };
    });
  const source = `${args.url.replace(/\/+$/, '')}/statusz/permissions`;
  let json: AccessLogJson;
  try {
    const res = await fetchText(source);
    if (res.status !== 200) {
      const hint = res.status === 404 ? ' (is the controller instrumented with instrumentContainer(container, { connectionPool })?)' : '';
      io.stderr(`protean-permissions: ${source} answered ${res.status}${hint}: ${res.body.slice(0, 200)}\n`);
      return 1;
    }
    json = JSON.parse(res.body) as AccessLogJson;
  } catch (err) {
    io.stderr(`protean-permissions: cannot read ${source}: ${(err as Error).message}\n`);
    return 1;
  }
  try {
    const used = permissionsUsed(json);
    if (args.compare === undefined) {
      io.stdout(
        toRbacYaml(used, {
          name: args.name,
          namespace: args.namespace,
          ...(args.serviceAccount === undefined ? {} : { serviceAccount: args.serviceAccount }),
        }),
      );
      return 0;
    }
    const readFile = io.readFile ?? (async (path: string) => (await import('node:fs/promises')).readFile(path, 'utf8'));
    const result = compareWithRbac(used, await readFile(args.compare), {
      serviceAccount: { namespace: args.namespace, name: args.serviceAccount ?? args.name },
    });
    io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    return result.missing.length === 0 && result.unused.length === 0 ? 0 : 1;
  } catch (err) {
    io.stderr(`protean-permissions: ${(err as Error).message}\n`);
    return 1;
  }
}

function parseArgs(argv: readonly string[]): CliArgs | 'help' {
  const values = new Map<string, string>();
  let url: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h' || arg === 'help') return 'help';
    if (arg.startsWith('--')) {
      const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
      if (!['--name', '--namespace', '--service-account', '--compare'].includes(flag)) {
        throw new Error(`protean-permissions: unknown option '${flag}'`);
      }
      const value = inline ?? argv[++i];
      if (value === undefined || value === '') throw new Error(`protean-permissions: ${flag} needs a value`);
      values.set(flag, value);
    } else if (url === undefined) url = arg;
    else throw new Error(`protean-permissions: unexpected argument '${arg}'`);
  }
  if (url === undefined) throw new Error('protean-permissions: no status server URL given');
  if (!/^https?:\/\//.test(url)) throw new Error(`protean-permissions: '${url}' is not an http(s) URL`);
  const name = values.get('--name');
  const namespace = values.get('--namespace');
  if (name === undefined) throw new Error('protean-permissions: --name is required');
  if (namespace === undefined) throw new Error('protean-permissions: --namespace is required');
  return { url, name, namespace, serviceAccount: values.get('--service-account'), compare: values.get('--compare') };
}
