// Each layout generated, wired to the workspace's packages, typechecked and its own tests run: green.
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
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
  it('typechecks, lints, builds dist/main.js and passes its own Jest tests', () => {
    const project = prepareGeneratedProject(layout, { build: true });
    made.push(project);
    const tsc = runInProject(project.dir, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json']);
    expect({ status: tsc.status, output: tsc.output }).toEqual({ status: 0, output: '' });
    const lint = runInProject(project.dir, ['node_modules/eslint/bin/eslint.js', '.']);
    expect({ status: lint.status, output: lint.output }).toEqual({ status: 0, output: '' });
    // One module: it imports node's own modules only, every package is inside it (client-node, left out, is
    // loaded only when asked for, not imported).
    const main = readFileSync(join(project.dir, 'dist/main.js'), 'utf8');
    const imported = [...main.matchAll(/^import\b[^'"]*['"]([^'"]+)['"]/gm)].map((m) => m[1] ?? '');
    expect(imported.length).toBeGreaterThan(0);
    expect(imported.filter((specifier) => !isBuiltin(specifier))).toEqual([]);
    expect(main).toContain('defineMetadata'); // reflect-metadata, which main.ts imports first
    // ASCII only. esbuild escapes what it writes but keeps some comments as they are, and one character past ASCII
    // in one of them makes V8 hold the whole source (kept for lazy compilation) at two bytes per character.
    expect([...main.matchAll(/^.*[^\t\n\r -~].*$/gm)].map((m) => m[0].trim())).toEqual([]);

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
    // Four tests on the in-memory API server, the RBAC check, the CRD's drift check and the heap cap against the memory
    // limit; the real-server one is opt-in (PROTEAN_ENVTEST=1) and says so.
    expect({ passed: result.numPassedTests, failed: result.numFailedTests, pending: result.numPendingTests }).toEqual({
      passed: 7,
      failed: 0,
      pending: 1,
    });
    const skipped = result.testResults.flatMap((s) => s.assertionResults.filter((a) => a.status === 'pending').map((a) => a.fullName));
    expect(skipped).toEqual([
      'the Widget controller on a real kube-apiserver (opt-in, skipped: set PROTEAN_ENVTEST=1, e.g. npm run test:real) applies the owned ConfigMap and reports Ready, refused nothing by its RBAC',
    ]);
  }, 180_000);
});

/** Runs one test file of the project; resolves with its exit status and output. */
function jestFile(project: PreparedProject, file: string): { status: number | null; output: string } {
  return runInProject(project.dir, [
    '--experimental-vm-modules',
    '--no-warnings=ExperimentalWarning',
    'node_modules/jest/bin/jest.js',
    file,
  ]);
}

// The edit a user makes next: a second owned kind. Its RBAC is not in deploy/ yet, and src/permissions.test.ts
// says so, every missing rule at once; with the rule added, it is green again.
describe.each(LAYOUTS)('a generated %s project given a second owned kind', (layout) => {
  it('fails its permissions test naming each rule deploy/ lacks, and passes once the rule is added', () => {
    const project = prepareGeneratedProject(layout);
    made.push(project);
    const controller = join(project.dir, 'src/controller.ts');
    const source = readFileSync(controller, 'utf8');
    const anchor = "{ nodeId: 'configmap', force: true, signal });\n";
    expect(source).toContain(anchor);
    writeFileSync(
      controller,
      source.replace(
        anchor,
        `${anchor}    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: child, namespace }, stringData: { message: 'x' } };
    await applyOwned(client, ctx.watcher, { group: '', version: 'v1', resource: 'secrets' }, parent, secret, { nodeId: 'secret', force: true, signal });
`,
      ),
    );
    const before = jestFile(project, 'src/permissions.test.ts');
    expect(before.status).toBe(1);
    const missing = [...before.output.matchAll(/"missing: ([^"]+)"/g)].map((m) => m[1]).sort();
    expect(missing).toEqual([
      'create secrets in namespace demo',
      'get secrets in namespace demo',
      'list secrets cluster-wide',
      'patch secrets in namespace demo',
      'watch secrets cluster-wide',
    ]);

    const clusterRole = join(project.dir, 'deploy/clusterrole.yaml');
    const rbac = readFileSync(clusterRole, 'utf8');
    const rules = 'rules:\n';
    expect(rbac).toContain(rules);
    writeFileSync(
      clusterRole,
      rbac.replace(rules, `${rules}  - apiGroups: ['']\n    resources: [secrets]\n    verbs: [get, list, watch, create, patch]\n`),
    );
    const after = jestFile(project, 'src/permissions.test.ts');
    expect({ status: after.status, output: after.status === 0 ? '' : after.output }).toEqual({ status: 0, output: '' });
  }, 180_000);
});

// The edit a user makes next when the cache outgrows the pod: a higher memory limit in deploy/. node's heap cap
// must follow it; src/memory.test.ts names every place that starts node, and is green once all of them do.
describe('a generated project whose memory limit is raised', () => {
  it("fails its memory test naming each place node's heap cap must follow, and passes once they do", () => {
    const project = prepareGeneratedProject('leader-election');
    made.push(project);
    expect(jestFile(project, 'src/memory.test.ts').status).toBe(0);
    const deployment = join(project.dir, 'deploy/deployment.yaml');
    const limit = /(limits:\n(?:\s*#.*\n)*\s*memory: )512Mi\n/;
    expect(readFileSync(deployment, 'utf8')).toMatch(limit);
    writeFileSync(deployment, readFileSync(deployment, 'utf8').replace(limit, '$11Gi\n'));

    const before = jestFile(project, 'src/memory.test.ts');
    expect(before.status).toBe(1);
    const named = [...before.output.matchAll(/--max-old-space-size=512 in ([^"(]+) \(has 256\)/g)].map((m) => m[1]).sort();
    expect(named).toEqual(["Dockerfile's CMD", 'package.json scripts.dev', 'package.json scripts.start']);

    for (const file of ['package.json', 'Dockerfile']) {
      const path = join(project.dir, file);
      writeFileSync(path, readFileSync(path, 'utf8').replaceAll('--max-old-space-size=256', '--max-old-space-size=512'));
    }
    const after = jestFile(project, 'src/memory.test.ts');
    expect({ status: after.status, output: after.status === 0 ? '' : after.output }).toEqual({ status: 0, output: '' });
  }, 120_000);
});
