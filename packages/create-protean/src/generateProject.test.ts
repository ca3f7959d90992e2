import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateProject } from './generateProject.js';
import { InvalidOptionError } from './InvalidOptionError.js';
import { InvalidProjectNameError } from './InvalidProjectNameError.js';
import { PROTEAN_VERSIONS } from './proteanVersions.js';
import { PLACEHOLDER, renderBlocks, TemplateBlockError } from './renderTemplate.js';
import { TargetNotEmptyError } from './TargetNotEmptyError.js';
import { UnknownLayoutError } from './UnknownLayoutError.js';
import { tarballName } from './vendorTarballs.js';

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'create-protean-'));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const read = (dir: string, file: string): string => readFileSync(join(dir, file), 'utf8');

const COMMON_FILES = [
  '.dockerignore',
  '.github/workflows/ci.yml',
  '.gitignore',
  'Dockerfile',
  'README.md',
  'build.mjs',
  'ci.sh',
  'deploy/clusterrole.yaml',
  'deploy/crd.yaml',
  'deploy/deployment.yaml',
  'deploy/kustomization.yaml',
  'deploy/namespace.yaml',
  'deploy/pdb.yaml',
  'deploy/role.yaml',
  'deploy/service.yaml',
  'deploy/serviceaccount.yaml',
  'deploy/networkpolicy.yaml',
  'eslint.config.js',
  'jest.config.js',
  'package.json',
  'src/app.ts',
  'src/composeController.ts',
  'src/controller.real.test.ts',
  'src/controller.test.ts',
  'src/controller.ts',
  'src/environment.ts',
  'src/kind.test.ts',
  'src/kind.ts',
  'src/main.ts',
  'src/memory.test.ts',
  'src/names.ts',
  'src/permissions.test.ts',
  'src/register.ts',
  'src/shutdown.ts',
  'tsconfig.json',
];

describe('generateProject', () => {
  it.each(['leader-election', 'sharding'] as const)('writes the same tree for the %s layout, every placeholder filled in', (layout) => {
    const dir = join(work, 'my-controller');
    const { files, project } = generateProject({ directory: dir, layout });
    expect(files).toEqual([...COMMON_FILES].sort());
    expect(project).toMatchObject({ name: 'my-controller', group: 'my-controller.example.com', kind: 'Widget', plural: 'widgets', layout });
    for (const file of files) expect({ file, leftovers: read(dir, file).match(PLACEHOLDER) }).toEqual({ file, leftovers: null });
    expect(statSync(join(dir, 'ci.sh')).mode & 0o111).toBe(0o111);
  });

  it('writes the layout-specific main, RBAC and Deployment', () => {
    const leader = join(work, 'leader');
    const sharded = join(work, 'sharded');
    generateProject({ directory: leader });
    generateProject({ directory: sharded, layout: 'sharding' });
    expect(read(leader, 'src/app.ts')).toContain("from '@protean/leader-election'");
    expect(read(sharded, 'src/app.ts')).toContain("from '@protean/sharding'");
    expect(read(leader, 'deploy/deployment.yaml')).toContain('replicas: 2');
    expect(read(sharded, 'deploy/deployment.yaml')).toContain('replicas: 3');
    expect(read(leader, 'deploy/clusterrole.yaml')).not.toContain('namespaces');
    expect(read(sharded, 'deploy/clusterrole.yaml')).toContain('resources: [namespaces]');
    expect(read(sharded, 'deploy/role.yaml')).toContain('- delete #');
    const deps = (dir: string): Record<string, string> =>
      (JSON.parse(read(dir, 'package.json')) as { dependencies: Record<string, string> }).dependencies;
    expect(deps(leader)['@protean/sharding']).toBeUndefined();
    expect(deps(sharded)['@protean/sharding']).toBe(`^${PROTEAN_VERSIONS['@protean/sharding']}`);
    expect(deps(leader)['@protean/core']).toBe(`^${PROTEAN_VERSIONS['@protean/core']}`);
  });

  it('starts node in the image as npm start does, with flags this node accepts', () => {
    const dir = join(work, 'flags');
    generateProject({ directory: dir });
    const cmd = /^CMD (\[.*\])$/m.exec(read(dir, 'Dockerfile'))?.[1];
    expect(cmd).toBeDefined();
    const image = JSON.parse(cmd!) as string[];
    const { start, dev } = (JSON.parse(read(dir, 'package.json')) as { scripts: Record<string, string> }).scripts;
    expect(image).toEqual(start!.split(' '));
    const flags = image.slice(1, -1);
    expect(flags.length).toBeGreaterThan(0);
    expect(dev).toContain(`node ${flags.join(' ')} --watch dist/main.js`);
    // A misspelt V8 flag makes node exit 9 ("bad option") before the controller starts.
    expect(spawnSync(process.execPath, [...flags, '-e', '0'], { encoding: 'utf8' })).toMatchObject({ status: 0, stderr: '' });
  });

  it.each(['leader-election', 'sharding'] as const)(
    "caps node's heap at half the %s Deployment's memory limit (the generated memory test's rule)",
    (layout) => {
      const dir = join(work, layout);
      generateProject({ directory: dir, layout });
      const limitMiB = Number(/limits:\n(?:\s*#.*\n)*\s*memory: (\d+)Mi\n/.exec(read(dir, 'deploy/deployment.yaml'))?.[1]);
      const { start } = (JSON.parse(read(dir, 'package.json')) as { scripts: Record<string, string> }).scripts;
      expect(start).toContain(`--max-old-space-size=${limitMiB / 2} `);
    },
  );

  it('substitutes the name, group, kind and Protean range everywhere', () => {
    const dir = join(work, 'x');
    generateProject({ directory: dir, name: 'policy-bot', group: 'ops.acme.io', kind: 'Policy', proteanVersion: '~0.1.0' });
    expect(read(dir, 'src/names.ts')).toContain("{ group: 'ops.acme.io', version: 'v1alpha1', resource: 'policies' }");
    expect(read(dir, 'src/names.ts')).toContain("kind: 'Policy'");
    expect(read(dir, 'deploy/crd.yaml')).toContain('name: policies.ops.acme.io');
    expect(read(dir, 'deploy/crd.yaml')).toContain('singular: policy');
    expect(read(dir, 'deploy/namespace.yaml')).toContain('name: policy-bot');
    const manifest = JSON.parse(read(dir, 'package.json')) as { name: string; dependencies: Record<string, string> };
    expect(manifest.name).toBe('policy-bot');
    expect(
      Object.entries(manifest.dependencies)
        .filter(([d]) => d.startsWith('@protean/'))
        .every(([, r]) => r === '~0.1.0'),
    ).toBe(true);
  });

  it('refuses a directory that holds files, naming it, and writes nothing', () => {
    const dir = join(work, 'taken');
    mkdirSync(dir);
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    const err = catchError(() => generateProject({ directory: dir }));
    expect(err).toBeInstanceOf(TargetNotEmptyError);
    expect(err).toMatchObject({ name: 'TargetNotEmptyError', directory: dir, entries: ['notes.txt'] });
    expect((err as Error).message).toContain(dir);
    expect(read(dir, 'notes.txt')).toBe('mine');
  });

  it('generates into an existing empty directory', () => {
    const dir = join(work, 'empty');
    mkdirSync(dir);
    expect(generateProject({ directory: dir }).files).toContain('src/main.ts');
  });

  it.each([
    ['My-Controller', 'lowercase letters'],
    ['-edge', 'starting and ending'],
    ['under_score', 'lowercase letters'],
    ['a'.repeat(64), 'at most 63 characters'],
  ])('refuses the name %s as an InvalidProjectNameError naming it', (name, why) => {
    const err = catchError(() => generateProject({ directory: join(work, 'ok'), name }));
    expect(err).toBeInstanceOf(InvalidProjectNameError);
    expect(err).toMatchObject({ name: 'InvalidProjectNameError', option: 'name', value: name });
    expect((err as Error).message).toContain(JSON.stringify(name));
    expect((err as Error).message).toContain(why);
  });

  it('refuses an unknown layout as an UnknownLayoutError listing the layouts', () => {
    const err = catchError(() => generateProject({ directory: join(work, 'ok'), layout: 'active-active' }));
    expect(err).toBeInstanceOf(UnknownLayoutError);
    expect((err as Error).message).toBe('invalid --layout "active-active": the layouts are leader-election and sharding');
  });

  it.each([
    ['group', { group: 'nodot' }],
    ['group', { group: 'Upper.io' }],
    ['kind', { kind: 'widget' }],
    ['kind', { kind: 'Wid-get' }],
    ['protean-version', { proteanVersion: 'latest' }],
  ])('refuses a bad --%s', (option, bad) => {
    const err = catchError(() => generateProject({ directory: join(work, 'ok'), ...bad }));
    expect(err).toBeInstanceOf(InvalidOptionError);
    expect(err).toMatchObject({ option, value: Object.values(bad)[0] });
  });
});

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
}

describe('generateProject --from a directory of packed tarballs', () => {
  const packed = (): string => {
    const dir = join(work, 'packed');
    mkdirSync(dir, { recursive: true });
    for (const [name, version] of Object.entries(PROTEAN_VERSIONS)) writeFileSync(join(dir, tarballName(name, version)), `${name}\n`);
    writeFileSync(join(dir, tarballName('@protean/core', '0.0.9')), 'an older one, not taken\n');
    return dir;
  };

  it('vendors every @protean/* tarball, names them as file: specs and overrides, and builds its image from them', () => {
    const from = packed();
    const dir = join(work, 'vendored');
    const { files } = generateProject({ directory: dir, layout: 'sharding', from });
    const vendored = Object.entries(PROTEAN_VERSIONS).map(([name, version]) => `vendor/${tarballName(name, version)}`);
    expect(files.filter((f) => f.startsWith('vendor/')).sort()).toEqual(vendored.sort());
    expect(read(dir, 'vendor/protean-core-0.1.0.tgz')).toBe('@protean/core\n');
    const manifest = JSON.parse(read(dir, 'package.json')) as Record<string, Record<string, string>>;
    expect(manifest['dependencies']?.['@protean/sharding']).toBe(
      `file:vendor/${tarballName('@protean/sharding', PROTEAN_VERSIONS['@protean/sharding']!)}`,
    );
    expect(manifest['devDependencies']?.['@protean/permissions']).toMatch(/^file:vendor\/protean-permissions-/);
    expect(Object.keys(manifest['overrides'] ?? {}).sort()).toEqual(Object.keys(PROTEAN_VERSIONS).sort());
    // Both install stages of the image get vendor/ before `npm ci`.
    expect(read(dir, 'Dockerfile').match(/COPY package.json package-lock.json .\/\nCOPY vendor .\/vendor\n/g)).toHaveLength(2);
  });

  it('refuses a directory without the tarballs, naming each missing file, and writes nothing', () => {
    const from = packed();
    rmSync(join(from, tarballName('@protean/kinds', PROTEAN_VERSIONS['@protean/kinds']!)));
    const dir = join(work, 'not-written');
    expect(() => generateProject({ directory: dir, from })).toThrow(
      `invalid --from ${JSON.stringify(from)}: missing protean-kinds-${PROTEAN_VERSIONS['@protean/kinds']}.tgz (pack them with pnpm pack:all, from the same checkout)`,
    );
    expect(() => generateProject({ directory: dir, from: join(work, 'nowhere') })).toThrow(/no such directory/);
    expect(existsSync(dir)).toBe(false);
  });
});

describe('generateProject --plural', () => {
  it('names the resource as given where the English guess is wrong, and refuses what is not a resource name', () => {
    const dir = join(work, 'indexer');
    const { project } = generateProject({ directory: dir, kind: 'Index', plural: 'indices' });
    expect(project.plural).toBe('indices');
    expect(read(dir, 'deploy/crd.yaml')).toContain('plural: indices');
    expect(() => generateProject({ directory: join(work, 'bad'), kind: 'Index', plural: 'Indices' })).toThrow('invalid --plural "Indices"');
    expect(() => generateProject({ directory: join(work, 'bad'), kind: 'Index', plural: 'index' })).toThrow(
      /must differ from the singular/,
    );
  });
});

describe('generateProject --webhooks', () => {
  const WEBHOOK_FILES = [
    'deploy/clusterrole-webhooks.yaml',
    'deploy/role-webhooks.yaml',
    'deploy/webhook-service.yaml',
    'src/admission.test.ts',
    'src/admission.ts',
  ];
  const BLOCK_MARKER = /#if |#endif/;

  it.each(['leader-election', 'sharding'] as const)(
    'adds the admission handlers, their Service, RBAC and dependency to the %s layout, and no block marker is left',
    (layout) => {
      const dir = join(work, `hooked-${layout}`);
      const { files, project } = generateProject({ directory: dir, layout, webhooks: true });
      expect(project.webhooks).toBe(true);
      expect(files).toEqual([...COMMON_FILES, ...WEBHOOK_FILES].sort());
      for (const file of files) {
        expect({ file, placeholders: read(dir, file).match(PLACEHOLDER), marker: BLOCK_MARKER.test(read(dir, file)) }).toEqual({
          file,
          placeholders: null,
          marker: false,
        });
      }
      expect(read(dir, 'src/app.ts')).toContain('registerWhenAllowed(admitting, PARENT.gvr, handler');
      expect(read(dir, 'src/app.ts')).not.toContain('registerWhenAllowed(controller, PARENT.gvr, handler');
      expect(read(dir, 'deploy/kustomization.yaml')).toContain('  - webhook-service.yaml\n');
      expect(read(dir, 'deploy/deployment.yaml')).toContain('containerPort: 9443');
      expect(read(dir, 'deploy/networkpolicy.yaml')).toContain('- port: webhooks');
      expect(read(dir, 'README.md')).toContain('## Admission webhooks');
      const deps = (JSON.parse(read(dir, 'package.json')) as { dependencies: Record<string, string> }).dependencies;
      expect(deps['@protean/webhooks']).toBe(`^${PROTEAN_VERSIONS['@protean/webhooks']}`);
    },
  );

  it('leaves every trace of the webhooks out of a project without them', () => {
    const dir = join(work, 'plain');
    const { files, project } = generateProject({ directory: dir });
    expect(project.webhooks).toBe(false);
    for (const file of files) {
      const text = read(dir, file);
      expect({ file, marker: BLOCK_MARKER.test(text), webhooks: /webhook/i.test(text) }).toEqual({
        file,
        marker: false,
        webhooks: false,
      });
    }
    expect(read(dir, 'src/app.ts')).toContain('registerWhenAllowed(controller, PARENT.gvr, handler');
  });
});

describe('renderBlocks', () => {
  const features = new Set(['webhooks'] as const);
  it('keeps a feature’s block, or the block of its absence, and drops the marker lines (TS, YAML and Markdown)', () => {
    const text = [
      'a',
      '// #if webhooks',
      'b',
      '// #endif',
      '  # #if !webhooks',
      'c',
      '  # #endif',
      '<!-- #if webhooks -->',
      'd',
      '<!-- #endif -->',
      'e',
    ].join('\n');
    expect(renderBlocks(text, features, 't')).toBe(['a', 'b', 'd', 'e'].join('\n'));
    expect(renderBlocks(text, new Set(), 't')).toBe(['a', 'c', 'e'].join('\n'));
  });

  it('refuses a block that does not open and close as it should, or an unknown feature, naming the file and line', () => {
    expect(() => renderBlocks('// #if gizmos\n// #endif', features, 'x.ts')).toThrow(
      new TemplateBlockError('x.ts', 1, 'no feature "gizmos" (known: webhooks)'),
    );
    expect(() => renderBlocks('a\n// #if webhooks\n// #if webhooks\n// #endif', features, 'x.ts')).toThrow(
      'template x.ts, line 3: #if inside the block opened at line 2',
    );
    expect(() => renderBlocks('// #if webhooks\na', features, 'x.ts')).toThrow('template x.ts, line 1: #if without #endif');
    expect(() => renderBlocks('a\n# #endif', features, 'x.yaml')).toThrow('template x.yaml, line 2: #endif without #if');
  });
});
