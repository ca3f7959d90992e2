import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * The oldest Node.js that `@kubernetes/client-node` 2.x loads on: its HTTP
 * client, undici 8, declares `>= 22.19` and on Node.js 20 fails while it loads
 * (`TypeError: Cannot read properties of undefined (reading 'bind')`, as
 * `zlib.createZstdDecompress` is missing).
 */
export const CLIENT_NODE_2_MIN_NODE = '22.19.0';

/**
 * `@kubernetes/client-node` 2.x and the Node.js running it do not go together:
 * the message names both versions and the two ways out.
 */
export class ClientNodeRuntimeError extends Error {
  override readonly name = 'ClientNodeRuntimeError';

  constructor(
    /** The Node.js found, e.g. `20.20.2`. */
    readonly nodeVersion: string,
    /** The installed `@kubernetes/client-node`, e.g. `2.0.1`. */
    readonly clientNodeVersion: string,
  ) {
    super(
      `@kubernetes/client-node ${clientNodeVersion} needs Node.js >= ${CLIENT_NODE_2_MIN_NODE}, but this is Node.js ${nodeVersion}: ` +
        'upgrade Node.js to 22.19 or later, or install @kubernetes/client-node@1.4 (npm install @kubernetes/client-node@1.4), ' +
        'which runs on Node.js 20.19+',
    );
  }
}

function parts(version: string): [number, number, number] {
  const [major = 0, minor = 0, patch = 0] = version.replace(/^v/, '').split(/[.+-]/).map(Number);
  return [major, minor, patch];
}

function olderThan(version: string, than: string): boolean {
  const [a, b] = [parts(version), parts(than)];
  for (let i = 0; i < 3; i += 1) if (a[i] !== b[i]) return (a[i] ?? 0) < (b[i] ?? 0);
  return false;
}

/**
 * Throws {@link ClientNodeRuntimeError} when `nodeVersion` is older than
 * {@link CLIENT_NODE_2_MIN_NODE} and the client-node version `installed()`
 * gives is 2.x or newer; an unknown client-node version (`undefined`) passes.
 * `installed` is called only on such an old Node.js: on a newer one any
 * client-node loads, and finding its package.json (a module resolution
 * walking every `node_modules` up from here) is work a process need not do
 * at start.
 */
export function checkClientNodeRuntime(nodeVersion: string, installed: () => string | undefined): void {
  if (!olderThan(nodeVersion, CLIENT_NODE_2_MIN_NODE)) return;
  const clientNodeVersion = installed();
  if (clientNodeVersion === undefined || parts(clientNodeVersion)[0] < 2) return;
  throw new ClientNodeRuntimeError(nodeVersion, clientNodeVersion);
}

/**
 * The version of the `@kubernetes/client-node` this package resolves (read
 * from its package.json, without loading it), or `undefined` when it cannot
 * be read.
 */
export function installedClientNodeVersion(from: string = import.meta.url): string | undefined {
  try {
    const file = createRequire(from).resolve('@kubernetes/client-node/package.json');
    const version: unknown = (JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown }).version;
    return typeof version === 'string' ? version : undefined;
  } catch {
    return undefined;
  }
}
