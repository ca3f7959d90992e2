// The create-protean part of the consumer test: the packed generator run the
// way `npm create protean` runs it, for each layout, and the project it
// generates installed from the packed @protean/* tarballs, tested and typechecked.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { run, tail } from './run.mjs';

/** The generator's package name: packed and published with the libraries, never installed into an app. */
export const GENERATOR = 'create-protean';
const LAYOUTS = ['leader-election', 'sharding'];

/**
 * For each layout: `npm exec --package=<create-protean tarball> -- create-protean <dir> --layout <l> --yes`
 * in an empty directory (what `npm create protean@latest <dir>` runs), then in the project: its
 * `@protean/*` dependencies pointed at the tarballs (the specs and npm `overrides`, so the packages'
 * own `@protean/*` dependencies resolve to them too), `npm install`, `npm test` (its Jest tests; the
 * opt-in real-server test reports itself skipped), `npm run typecheck`, `npm run lint` and `npm run build`.
 * Records on `checks`; returns `{ layout, seconds }[]`: from the start of the generator to the end of
 * the first green `npm test`.
 */
export function createProteanChecks({ checks, tarballs, work, env }) {
  const generator = tarballs.find((t) => t.name === GENERATOR);
  if (generator === undefined) {
    checks.fail(`${GENERATOR} is packed`, 'no tarball');
    return [];
  }
  const libraries = tarballs.filter((t) => t.name !== GENERATOR);
  const timings = [];
  for (const layout of LAYOUTS) {
    const parent = join(work, `create-${layout}`);
    mkdirSync(parent, { recursive: true });
    const dir = join(parent, 'my-controller');
    const label = `${GENERATOR} --layout ${layout}`;
    const started = Date.now();
    const create = run(
      'npm',
      // As `pnpm create:local` runs it: the packed generator, with --from the directory of the packed packages.
      [
        'exec',
        '--yes',
        `--package=${generator.path}`,
        '--',
        GENERATOR,
        'my-controller',
        '--layout',
        layout,
        '--yes',
        '--from',
        dirname(generator.path),
      ],
      { cwd: parent, env, timeoutMs: 5 * 60_000 },
    );
    if (!create.ok || !existsSync(join(dir, 'package.json'))) {
      checks.fail(`${label}: the packed bin generates a project`, `exit ${create.status ?? create.signal}\n${tail(create.output, 30)}`);
      continue;
    }
    checks.pass(`${label}: the packed bin generates a project`, `${create.seconds.toFixed(1)}s; ${create.stdout.trim().split('\n')[0]}`);

    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const proteanSpecs = Object.entries({ ...manifest.dependencies, ...manifest.devDependencies }).filter(([n]) =>
      n.startsWith('@protean/'),
    );
    // --from: every @protean/* dependency (and override) is the packed tarball, copied into the project's vendor/.
    const vendoredSpec = (t) => `file:vendor/${basename(t.path)}`;
    checks.expectNone(`${label}: every @protean/* dependency is its packed tarball, vendored`, [
      ...proteanSpecs
        .map(([name, spec]) => [name, spec, libraries.find((t) => t.name === name)])
        .filter(([, spec, t]) => t === undefined || spec !== vendoredSpec(t) || !existsSync(join(dir, 'vendor', basename(t.path))))
        .map(([name, spec]) => `${name} ${spec}`),
      ...libraries.filter((t) => manifest.overrides?.[t.name] !== vendoredSpec(t)).map((t) => `overrides: ${t.name}`),
    ]);

    const install = run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: dir, env, timeoutMs: 10 * 60_000 });
    if (!install.ok) {
      checks.fail(`${label}: npm install from the tarballs`, tail(install.output, 30));
      continue;
    }
    checks.pass(`${label}: npm install from the tarballs`, `${install.seconds.toFixed(1)}s`);

    const resultFile = join(parent, 'jest.json');
    const test = run('npm', ['test', '--', '--json', `--outputFile=${resultFile}`], { cwd: dir, env, timeoutMs: 5 * 60_000 });
    const seconds = (Date.now() - started) / 1000;
    if (!existsSync(resultFile)) {
      checks.fail(`${label}: npm test`, `no result (exit ${test.status ?? test.signal})\n${tail(test.output, 30)}`);
      continue;
    }
    const result = JSON.parse(readFileSync(resultFile, 'utf8'));
    for (const suite of result.testResults) {
      const name = relative(dir, suite.name);
      if (suite.status === 'failed' && suite.assertionResults.length === 0)
        checks.fail(`${label}: jest ${name} loads`, (suite.message ?? '').split('\n').slice(0, 8).join('\n'));
      for (const a of suite.assertionResults) {
        if (a.status === 'passed') checks.pass(`${label}: jest ${name} > ${a.fullName}`);
        else if (a.status === 'failed')
          checks.fail(`${label}: jest ${name} > ${a.fullName}`, (a.failureMessages[0] ?? '').split('\n').slice(0, 6).join('\n'));
        // The opt-in real-server test, skipped without PROTEAN_ENVTEST=1 (it says so): not a check of this run.
      }
    }
    if (test.ok && result.numPassedTests > 0) {
      checks.pass(`${label}: npm test is green`, `${result.numPassedTests} passed, ${result.numPendingTests} opt-in skipped`);
      timings.push({ layout, seconds });
    } else checks.fail(`${label}: npm test is green`, `exit ${test.status ?? test.signal}\n${tail(test.output, 20)}`);
    if (layout === 'leader-election') editStatusOnlyInTypeScript({ checks, label, dir, env });
    const skipped = result.testResults.flatMap((s) => s.assertionResults.filter((a) => a.status === 'pending').map((a) => a.fullName));
    checks.expectNone(
      `${label}: only the opt-in real-server test is skipped, under a name that says how to run it`,
      skipped.filter((n) => !n.includes('set PROTEAN_ENVTEST=1')).map((n) => `skipped: ${n}`),
    );

    const typecheck = run('npm', ['run', 'typecheck'], { cwd: dir, env });
    if (typecheck.ok) checks.pass(`${label}: npm run typecheck (against the published .d.ts)`, `${typecheck.seconds.toFixed(1)}s`);
    else checks.fail(`${label}: npm run typecheck (against the published .d.ts)`, tail(typecheck.output, 30));
    const lint = run('npm', ['run', 'lint'], { cwd: dir, env });
    if (lint.ok) checks.pass(`${label}: npm run lint`, `${lint.seconds.toFixed(1)}s`);
    else checks.fail(`${label}: npm run lint`, tail(lint.output, 30));
    const build = run('npm', ['run', 'build'], { cwd: dir, env });
    if (build.ok && existsSync(join(dir, 'dist/main.js')))
      checks.pass(`${label}: npm run build writes dist/main.js`, `${build.seconds.toFixed(1)}s`);
    else checks.fail(`${label}: npm run build writes dist/main.js`, tail(build.output, 30));
    console.log(`  ${label}: create to first green test ${seconds.toFixed(1)}s`);
  }
  return timings;
}

/**
 * On a Node.js older than a generated project needs (the Node 20 leg): the packed generator still runs (its
 * engines allow Node 20), writes the project, and says before the next steps that the project needs Node 24.
 */
export function createProteanOnOlderNode({ checks, tarballs, work, env, nodeVersion }) {
  const generator = tarballs.find((t) => t.name === GENERATOR);
  if (generator === undefined) {
    checks.fail(`${GENERATOR} is packed`, 'no tarball');
    return;
  }
  const parent = join(work, 'create-older-node');
  mkdirSync(parent, { recursive: true });
  const label = `${GENERATOR} on ${nodeVersion}`;
  const create = run('npm', ['exec', '--yes', `--package=${generator.path}`, '--', GENERATOR, 'my-controller', '--yes'], {
    cwd: parent,
    env,
    timeoutMs: 5 * 60_000,
  });
  if (!create.ok || !existsSync(join(parent, 'my-controller/package.json'))) {
    checks.fail(`${label}: the packed bin generates a project`, `exit ${create.status ?? create.signal}\n${tail(create.output, 30)}`);
    return;
  }
  checks.pass(`${label}: the packed bin generates a project`, `${create.seconds.toFixed(1)}s`);
  const engines = JSON.parse(readFileSync(join(parent, 'my-controller/package.json'), 'utf8')).engines?.node;
  const note = create.stdout.split('\n').find((l) => l.startsWith('Note: the project needs Node.js 24'));
  if (engines === '>=24' && note?.includes(`this is ${nodeVersion}`) === true)
    checks.pass(`${label}: it says the project needs Node.js 24`, note);
  else checks.fail(`${label}: it says the project needs Node.js 24`, `engines ${engines}; output:\n${tail(create.output, 15)}`);
}

/**
 * The edit a user makes next: the handler writes one more status field, added in TypeScript only. The in-memory
 * test runs against deploy/crd.yaml's schema with fieldValidation Strict, so `npm test` fails with the server's strict
 * decoding error naming the field (kube-apiserver would prune it, silently but for its Warning header). The file is
 * put back afterwards.
 */
function editStatusOnlyInTypeScript({ checks, label, dir, env }) {
  const name = `${label}: a status field added only in TypeScript fails npm test with the server's strict decoding error`;
  const file = join(dir, 'src/controller.ts');
  const kindFile = join(dir, 'src/kind.ts');
  const crdFile = join(dir, 'deploy/crd.yaml');
  const original = readFileSync(file, 'utf8');
  const kind = readFileSync(kindFile, 'utf8');
  const crd = readFileSync(crdFile, 'utf8');
  const written = '{ conditions, parts: parts.length }';
  if (!original.includes(written)) {
    checks.fail(name, `src/controller.ts no longer writes ${written}`);
    return;
  }
  writeFileSync(file, original.replace(written, "{ conditions, parts: parts.length, secretName: 'demo' }"));
  try {
    // One test is enough to see the refusal (each failing one waits out its waitFor timeout).
    const test = run('npm', ['test', '--', 'src/controller.test.ts', '-t', 'applies an owned ConfigMap'], {
      cwd: dir,
      env,
      timeoutMs: 5 * 60_000,
    });
    const named =
      test.output.includes('strict decoding error') &&
      (test.output.includes('unknown field \\"status.secretName\\"') || test.output.includes('unknown field "status.secretName"'));
    if (!test.ok && named) checks.pass(name);
    else checks.fail(name, `exit ${test.status ?? test.signal}, ${named ? 'named' : 'did not name'} the field\n${tail(test.output, 20)}`);

    // Then the fix: the field declared once (src/kind.ts); the drift test names deploy/crd.yaml until `npm run crd`.
    const declared = `${label}: the field declared in src/kind.ts: npm test names the drifted deploy/crd.yaml, npm run crd makes it green`;
    const status = '      status: Type.Object({\n';
    if (!kind.includes(status)) {
      checks.fail(declared, 'src/kind.ts has no "status: Type.Object({" line');
      return;
    }
    writeFileSync(kindFile, kind.replace(status, `${status}        secretName: Type.Optional(Type.String()),\n`));
    // The drift check names it (the controller's tests would also fail, each after its waitFor timeout).
    const drifted = run('npm', ['test', '--', 'src/kind.test.ts'], { cwd: dir, env, timeoutMs: 5 * 60_000 });
    const crdRun = run('npm', ['run', 'crd'], { cwd: dir, env });
    const green = crdRun.ok ? run('npm', ['test'], { cwd: dir, env, timeoutMs: 5 * 60_000 }) : crdRun;
    if (!drifted.ok && drifted.output.includes('secretName') && crdRun.ok && green.ok) checks.pass(declared);
    else
      checks.fail(
        declared,
        `drifted: exit ${drifted.status}; npm run crd: exit ${crdRun.status}; then npm test: exit ${green.status}\n` +
          `${tail(drifted.output, 10)}\n${tail(crdRun.output, 10)}\n${tail(green.output, 15)}`,
      );
  } finally {
    writeFileSync(file, original);
    writeFileSync(kindFile, kind);
    writeFileSync(crdFile, crd);
  }
}
