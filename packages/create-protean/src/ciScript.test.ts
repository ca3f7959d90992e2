// The generated ci.sh, with npm and docker replaced by stubs on PATH that record their calls.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateProject } from './generateProject.js';

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'create-protean-ci-'));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const BASH = spawnSync('sh', ['-c', 'command -v bash'], { encoding: 'utf8' }).stdout.trim();

function stub(bin: string, name: string, body: string): void {
  const file = join(bin, name);
  writeFileSync(file, `#!${BASH}\necho "${name} $*" >> "${join(work, 'calls.log')}"\n${body}\n`);
  chmodSync(file, 0o755);
}

function runCi(docker: 'missing' | 'no daemon' | 'running'): { status: number | null; output: string; calls: string[] } {
  const dir = join(work, 'my-controller');
  generateProject({ directory: dir });
  const bin = join(work, 'bin');
  mkdirSync(bin);
  stub(bin, 'npm', 'exit 0');
  if (docker !== 'missing') stub(bin, 'docker', docker === 'running' ? 'exit 0' : '[ "$1" = info ] && exit 1; exit 0');
  // PATH holds the stubs and dirname only: a docker installed on this machine must not be found.
  symlinkSync(spawnSync('sh', ['-c', 'command -v dirname'], { encoding: 'utf8' }).stdout.trim(), join(bin, 'dirname'));
  const res = spawnSync(BASH, [join(dir, 'ci.sh')], { env: { PATH: bin }, encoding: 'utf8' });
  const calls = readFileSync(join(work, 'calls.log'), 'utf8').trim().split('\n');
  return { status: res.status, output: `${res.stdout}${res.stderr}`, calls };
}

describe('ci.sh', () => {
  it('installs, typechecks, lints, tests and builds, then the image when a docker daemon answers', () => {
    const { status, calls } = runCi('running');
    expect(status).toBe(0);
    expect(calls).toEqual([
      'npm install --no-audit --no-fund',
      'npm run typecheck',
      'npm run lint',
      'npm test',
      'npm run build',
      'docker info',
      'docker build -t my-controller:0.1.0 .',
    ]);
  });

  it('skips the image, saying why, when docker is installed but its daemon does not answer', () => {
    const { status, output, calls } = runCi('no daemon');
    expect(status).toBe(0);
    expect(output).toContain('ci.sh: docker is installed but its daemon does not answer (docker info failed), image not built');
    expect(calls.filter((c) => c.startsWith('docker'))).toEqual(['docker info']);
  });

  it('skips the image when there is no docker', () => {
    const { status, output } = runCi('missing');
    expect(status).toBe(0);
    expect(output).toContain('ci.sh: docker not found, image not built');
  });
});
