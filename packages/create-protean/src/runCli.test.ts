import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Layout } from './Layout.js';
import { runCli, type Asker, type CliIo } from './runCli.js';

let work: string;
let out: string[];
let err: string[];
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'create-protean-cli-'));
  out = [];
  err = [];
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const io = (overrides: Partial<CliIo> = {}): CliIo => ({
  out: (l) => out.push(l),
  err: (l) => err.push(l),
  interactive: false,
  cwd: work,
  nodeVersion: 'v24.1.0',
  ...overrides,
});

/** An Asker that answers from a script and records what it was asked. */
function scripted(directory: string | undefined, layout: Layout | undefined, asked: string[]): Asker {
  return {
    directory: async (defaultValue, validate) => {
      asked.push(`directory (default ${defaultValue}; "Bad" is ${validate('Bad') === undefined ? 'accepted' : 'refused'})`);
      return directory;
    },
    layout: async () => {
      asked.push('layout');
      return layout;
    },
  };
}

describe('runCli', () => {
  it('generates from flags alone when not interactive, and prints the next steps', async () => {
    const code = await runCli(['svc', '--layout', 'sharding', '--group', 'ops.acme.io', '--kind', 'Policy'], io());
    expect({ code, err }).toEqual({ code: 0, err: [] });
    expect(out[0]).toBe('Created svc (sharding, Policy.ops.acme.io) in svc: 35 files.');
    expect(out).toContain('  cd svc');
    expect(readFileSync(join(work, 'svc/src/app.ts'), 'utf8')).toContain('@protean/sharding');
  });

  it('says when the Node.js running it is older than the project needs, and still generates it', async () => {
    expect(await runCli(['old', '--yes'], io({ nodeVersion: 'v20.19.0' }))).toBe(0);
    expect(out).toContain(
      'Note: the project needs Node.js 24 or later (its engines); this is v20.19.0. Install Node.js 24 before npm install, ' +
        'or, to stay on Node.js 20.19+, run npm install @kubernetes/client-node@1.4 after it (client-node 2.x needs Node.js 22.19+; ' +
        'without 1.4 the first test stops with ClientNodeRuntimeError).',
    );
    expect(JSON.parse(readFileSync(join(work, 'old/package.json'), 'utf8')).engines).toEqual({ node: '>=24' });
    out.length = 0;
    expect(await runCli(['new', '--yes'], io())).toBe(0);
    expect(out.some((l) => l.startsWith('Note:'))).toBe(false);
  });

  it('asks for the directory and the layout only when interactive and not --yes', async () => {
    const asked: string[] = [];
    const code = await runCli([], io({ interactive: true, ask: scripted(join(work, 'asked'), 'sharding', asked) }));
    expect(code).toBe(0);
    expect(asked).toEqual(['directory (default my-controller; "Bad" is refused)', 'layout']);
    expect(readFileSync(join(work, 'asked/deploy/deployment.yaml'), 'utf8')).toContain('replicas: 3');

    const none: string[] = [];
    expect(await runCli([join(work, 'yes'), '--yes'], io({ interactive: true, ask: scripted(undefined, undefined, none) }))).toBe(0);
    expect(none).toEqual([]);
    expect(readFileSync(join(work, 'yes/deploy/deployment.yaml'), 'utf8')).toContain('replicas: 2');
  });

  it('writes nothing when a question is cancelled', async () => {
    const code = await runCli([], io({ interactive: true, ask: scripted(join(work, 'c'), undefined, []) }));
    expect({ code, err }).toEqual({ code: 1, err: ['cancelled: nothing was written'] });
    expect(existsSync(join(work, 'c'))).toBe(false);
  });

  it('prints a bad option as its named error and exits 1', async () => {
    expect(await runCli([join(work, 'a'), '--layout', 'ring'], io())).toBe(1);
    expect(err).toEqual(['UnknownLayoutError: invalid --layout "ring": the layouts are leader-election and sharding']);
    expect(await runCli(['--colour'], io())).toBe(1);
    expect(err[1]).toMatch(/^UsageError: Unknown option '--colour'.*\(see --help\)$/);
    expect(await runCli(['a', 'b'], io())).toBe(1);
    expect(err[2]).toBe('InvalidOptionError: invalid --directory "a b": give one directory (quote a path with spaces)');
  });

  it('takes --sharding for --layout sharding, and refuses it next to another layout', async () => {
    expect(await runCli([join(work, 's'), '--sharding'], io())).toBe(0);
    expect(readFileSync(join(work, 's/deploy/deployment.yaml'), 'utf8')).toContain('replicas: 3');
    expect(await runCli([join(work, 't'), '--sharding', '--layout', 'leader-election'], io())).toBe(1);
    expect(err).toEqual([
      'InvalidOptionError: invalid --layout "leader-election": --sharding asks for the sharding layout: give one of them',
    ]);
    expect(existsSync(join(work, 't'))).toBe(false);
  });

  it('prints the usage for --help', async () => {
    expect(await runCli(['--help'], io())).toBe(0);
    expect(out.join('\n')).toContain('--layout <layout>');
  });
});
