import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { runCrdCli } from './cli.js';
import { crdDrift, crdYaml, GENERATED_HEADER } from './crdYaml.js';
import { WebApp } from './webAppKind.testkit.js';

const dir = mkdtempSync(join(tmpdir(), 'protean-crd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// The compiled fixture (dist/), as a project's build would give the CLI.
const fixture = fileURLToPath(new URL('./webAppKind.testkit.js', import.meta.url)).replace(
  join('src', 'webAppKind'),
  join('dist', 'webAppKind'),
);

describe('crdYaml and crdDrift', () => {
  it('writes the CRD with a header and reads back equal to the declaration', () => {
    const text = crdYaml([WebApp]);
    expect(text.split('\n')[0]).toBe(GENERATED_HEADER);
    expect(parse(text.split('---\n')[1]!)).toEqual(WebApp.crd());
    expect(crdDrift([WebApp], text)).toEqual({ inSync: true, differences: [] });
  });

  it('names every difference of a committed file edited by hand, or out of date, and CRDs on one side only', () => {
    const edited = crdYaml([WebApp]).replace('minimum: 0', 'minimum: 1').replace('jsonPath: .spec.image', 'jsonPath: .spec.img');
    expect(crdDrift([WebApp], edited).differences).toEqual([
      'webapps.demo.protean.dev: spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.replicas.minimum: declared 0, file has 1',
      'webapps.demo.protean.dev: spec.versions[0].additionalPrinterColumns[0].jsonPath: declared ".spec.image", file has ".spec.img"',
    ]);
    const other = 'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: others.a.b\n';
    expect(crdDrift([WebApp], other).differences).toEqual([
      'webapps.demo.protean.dev: declared, not in the file',
      'others.a.b: in the file, not declared',
    ]);
  });
});

describe('protean-crd', () => {
  it('writes the CRDs of the kinds a module exports, and --check passes on that file', async () => {
    const out = join(dir, 'crd.yaml');
    const wrote = await runCrdCli([fixture, '--out', out]);
    expect(wrote).toEqual({ code: 0, stdout: `wrote webapps.demo.protean.dev to ${out}\n`, stderr: '' });
    expect(readFileSync(out, 'utf8')).toBe(crdYaml([WebApp]));
    expect(await runCrdCli([fixture, '--out', out, '--check'])).toMatchObject({ code: 0 });
  });

  it('--check fails, listing the differences, once the file drifts; bad input gets a clear message', async () => {
    const out = join(dir, 'drifted.yaml');
    writeFileSync(out, crdYaml([WebApp]).replace('maximum: 10', 'maximum: 5'));
    const checked = await runCrdCli([fixture, '--out', out, '--check']);
    expect(checked.code).toBe(1);
    expect(checked.stderr).toContain('replicas.maximum: declared 10, file has 5');
    expect(checked.stderr).toContain(`write it again with: protean-crd ${fixture} --out ${out}`);
    expect((await runCrdCli([])).stderr).toMatch(/which module declares the kinds/);
    expect((await runCrdCli([join(dir, 'missing.js')])).stderr).toMatch(/cannot load .*missing\.js/);
    expect((await runCrdCli([fixture, '--check'])).stderr).toMatch(/--check needs --out/);
    expect((await runCrdCli([fixture, '--out', join(dir, 'none.yaml'), '--check'])).stderr).toMatch(/does not exist; write it with/);
    expect((await runCrdCli([fixture, '--bogus'])).code).toBe(2);
  });
});
