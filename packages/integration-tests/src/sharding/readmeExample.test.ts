// The "Putting it together" snippet of packages/sharding/README.md, kept
// runnable: the block between the README markers below is the README's code
// (the test checks they match, and that every import of the README's block
// is one of this file's), run on the in-memory API server.
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from '@jest/globals';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { coordinatorModule } from '@protean/coordinator';
import { coreModule, createLogger, DynamicController, TOKENS, type GroupVersionResource, type Handler } from '@protean/core';
import { waitFor } from '@protean/core/testing';
import { InMemoryApiServer } from '@protean/in-memory-apiserver';
import { defaultIdentity } from '@protean/leader-election';
import { queueModule } from '@protean/queue';
import { detectShardSelectorSupport, shardingModule, type ShardReplica } from '@protean/sharding';
import { FULL_RANGE } from '@protean/sharding/internal';
import { watchManagerModule } from '@protean/watch-manager';
import { Container } from 'inversify';

const README = new URL('../../../sharding/README.md', import.meta.url);
const THIS_FILE = new URL(import.meta.url);

/** The README's sharded replica, with what the test looks at. */
async function composeReplica(kubeConfig: KubeConfig, webapps: GroupVersionResource, handler: Handler, signal: AbortSignal) {
  // README: begin
  const logger = createLogger();
  const { mode } = await detectShardSelectorSupport(kubeConfig, { logger });
  const namespaces = (await kubeConfig.makeApiClient(CoreV1Api).listNamespace()).items.map((ns) => ns.metadata!.name!);

  const container = new Container();
  container.load(
    coreModule({}, logger),
    queueModule(),
    watchManagerModule({ kubeConfig }),
    coordinatorModule(),
    // After watchManagerModule: its sharded source replaces the module's, and its gate is fenced by the member's lease.
    shardingModule({
      kubeConfig,
      key: 'namespace',
      mode,
      namespace: 'default', // where the member leases live
      group: 'webapp',
      identity: defaultIdentity(),
      keys: () => namespaces, // the split balances the namespaces present at start
    }),
  );
  const controller = container.get(DynamicController);

  // Runs the membership too; every handler registered is wrapped by the shard's gate.
  const running = controller.start(signal);
  await controller.register(webapps, handler);
  // README: end
  const replica = container.get(TOKENS.passGate) as ShardReplica;
  return { running, membership: replica.membership, mode };
}

/** The lines of `text` between the `// README: begin` and `// README: end` markers of this file, unindented. */
function markedBlock(text: string): string[] {
  const lines = text.split('\n');
  const begin = lines.findIndex((l) => l.trim() === '// README: begin');
  const end = lines.findIndex((l) => l.trim() === '// README: end');
  return lines.slice(begin + 1, end).map((l) => l.replace(/^ {2}/, ''));
}

/** The names each `import` statement of `code` takes, by module (`[]` for a side-effect import). */
function importsOf(code: string): Map<string, string[]> {
  const imports = new Map<string, string[]>();
  for (const m of code.matchAll(/import\s+(?:\{([^}]*)\}\s+from\s+)?'([^']+)'/g)) {
    const names = (m[1] ?? '')
      .split(',')
      .map((n) => n.trim())
      .filter((n) => n !== '');
    imports.set(m[2]!, [...(imports.get(m[2]!) ?? []), ...names]);
  }
  return imports;
}

/** The ts code block that follows the "## Putting it together" heading of the README. */
function readmeBlock(readme: string): string[] {
  const section = readme.slice(readme.indexOf('## Putting it together'));
  const start = section.indexOf('```ts\n') + '```ts\n'.length;
  return section.slice(start, section.indexOf('```', start)).trimEnd().split('\n');
}

describe('the sharding README', () => {
  let server: InMemoryApiServer | undefined;
  let stop = new AbortController();

  afterEach(async () => {
    stop.abort();
    stop = new AbortController();
    await server?.stop();
  });

  it('shows the code this test runs, imports included', () => {
    const block = readmeBlock(readFileSync(README, 'utf8'));
    const source = readFileSync(THIS_FILE, 'utf8');
    const imports = block.filter((l) => l.startsWith('import '));
    const code = block
      .filter((l) => !l.startsWith('import '))
      .join('\n')
      .trim();
    expect(code).toBe(markedBlock(source).join('\n').trim());
    const ours = importsOf(source);
    for (const [module, names] of importsOf(imports.join('\n'))) {
      expect({ module, names: names.filter((n) => !(ours.get(module) ?? []).includes(n)) }).toEqual({ module, names: [] });
    }
  });

  it('"Putting it together" runs: one replica owns the whole range and reconciles every instance', async () => {
    const previousLevel = process.env['LOG_LEVEL'];
    process.env['LOG_LEVEL'] = 'silent';
    try {
      server = await InMemoryApiServer.start();
      const webapps = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
      server.registerResource({ ...webapps, kind: 'WebApp', namespaced: true, hasStatusSubresource: true });
      for (const ns of ['team-a', 'team-b', 'team-c']) {
        server.create({ group: '', version: 'v1', resource: 'namespaces' }, { metadata: { name: ns } });
        server.create(webapps, { metadata: { name: 'app', namespace: ns }, spec: {} });
      }
      const seen = new Set<string>();
      const handler: Handler = async (req) => void seen.add(req.namespace);
      const replica = await composeReplica(server.kubeConfig(), webapps, handler, stop.signal);
      await waitFor(() => seen.size === 3, { timeoutMs: 15_000, message: 'every instance reconciled by the only replica' });
      expect([...seen].sort()).toEqual(['team-a', 'team-b', 'team-c']);
      expect(replica.membership.ranges()).toEqual([FULL_RANGE]);
      stop.abort();
      await replica.running;
      // The member left: its lease is released.
      expect(replica.membership.status().renewing).toBe(false);
    } finally {
      if (previousLevel === undefined) delete process.env['LOG_LEVEL'];
      else process.env['LOG_LEVEL'] = previousLevel;
    }
  });
});
