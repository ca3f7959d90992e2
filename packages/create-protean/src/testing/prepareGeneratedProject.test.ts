// Each layout generated, wired to the workspace's packages, typechecked and its own tests run: green.
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LAYOUTS } from '../Layout.js';
import { prepareGeneratedProject, runInProject, type PreparedProject } from './prepareGeneratedProject.js';

interface JestResult {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  testResults: Array<{ name: string; status: string; message: string; assertionResults: Array<{ fullName: string; status: string }> }>;
}

const made: PreparedProject[] = [];
afterAll(() => made.forEach((p) => p.remove()));

describe.each(LAYOUTS)('a generated %s project on the workspace packages', (layout) => {
  it('typechecks, builds dist/main.js and passes its own Jest tests', () => {
    const project = prepareGeneratedProject(layout, { build: true });
    made.push(project);
    const tsc = runInProject(project.dir, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json']);
    expect({ status: tsc.status, output: tsc.output }).toEqual({ status: 0, output: '' });
    expect(readFileSync(join(project.dir, 'dist/main.js'), 'utf8')).toContain("import 'reflect-metadata'");

    const out = join(mkdtempSync(join(tmpdir(), 'create-protean-jest-')), 'result.json');
    const jest = runInProject(project.dir, [
      '--experimental-vm-modules',
      '--no-warnings=ExperimentalWarning',
      'node_modules/jest/bin/jest.js',
      '--json',
      `--outputFile=${out}`,
    ]);
    const result = JSON.parse(readFileSync(out, 'utf8')) as JestResult;
    rmSync(join(out, '..'), { recursive: true, force: true });
    const failures = result.testResults.filter((s) => s.status === 'failed').map((s) => `${s.name}: ${s.message}`);
    expect({ status: jest.status, failures }).toEqual({ status: 0, failures: [] });
    // Four tests on the in-memory API server and the CRD's drift check; the real-server one is opt-in (PROTEAN_ENVTEST=1) and says so.
    expect({ passed: result.numPassedTests, failed: result.numFailedTests, pending: result.numPendingTests }).toEqual({
      passed: 5,
      failed: 0,
      pending: 1,
    });
    const skipped = result.testResults.flatMap((s) => s.assertionResults.filter((a) => a.status === 'pending').map((a) => a.fullName));
    expect(skipped).toEqual([
      'the Widget controller on a real kube-apiserver (opt-in, skipped: set PROTEAN_ENVTEST=1, e.g. npm run test:real) applies the owned ConfigMap and reports Ready',
    ]);
  }, 180_000);
});
