import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { crdDrift, crdYaml } from './crdYaml.js';
import type { KindDeclaration } from './defineKind.js';

const USAGE = `usage: protean-crd <module> [--out <file>] [--check]

  <module>       a JavaScript or TypeScript module (Node runs .ts by stripping types) whose exports
                 include kinds made with defineKind
  --out <file>   write the CRDs there (default: standard output)
  --check        compare <file> with the declarations instead; exit 1 listing each difference`;

/** What the CLI did: its exit code and what it printed. */
export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function isKind(value: unknown): value is KindDeclaration {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as KindDeclaration).crd === 'function' &&
    typeof (value as KindDeclaration).crdName === 'string'
  );
}

/** `protean-crd`, callable: writes or checks the CRD file of a module's kind declarations. */
export async function runCrdCli(argv: readonly string[]): Promise<CliResult> {
  const args = [...argv];
  let out: string | undefined;
  let check = false;
  let module: string | undefined;
  while (args.length > 0) {
    const a = args.shift()!;
    if (a === '--out') out = args.shift();
    else if (a === '--check') check = true;
    else if (a === '--help' || a === '-h') return { code: 0, stdout: `${USAGE}\n`, stderr: '' };
    else if (a.startsWith('-')) return { code: 2, stdout: '', stderr: `protean-crd: unknown option ${a}\n${USAGE}\n` };
    else if (module === undefined) module = a;
    else return { code: 2, stdout: '', stderr: `protean-crd: one module only, got ${module} and ${a}\n` };
  }
  if (module === undefined) return { code: 2, stdout: '', stderr: `protean-crd: which module declares the kinds?\n${USAGE}\n` };
  if (check && out === undefined) return { code: 2, stdout: '', stderr: 'protean-crd: --check needs --out <file> to compare\n' };
  let exports: Record<string, unknown>;
  try {
    exports = (await import(pathToFileURL(resolve(module)).href)) as Record<string, unknown>;
  } catch (err) {
    return { code: 1, stdout: '', stderr: `protean-crd: cannot load ${module}: ${err instanceof Error ? err.message : String(err)}\n` };
  }
  const kinds = Object.values(exports).filter(isKind);
  if (kinds.length === 0) return { code: 1, stdout: '', stderr: `protean-crd: ${module} exports no kind made with defineKind\n` };
  if (check) {
    const text = await readFile(out!, 'utf8').catch(() => undefined);
    if (text === undefined)
      return { code: 1, stdout: '', stderr: `protean-crd: ${out} does not exist; write it with: protean-crd ${module} --out ${out}\n` };
    const drift = crdDrift(kinds, text);
    if (drift.inSync) return { code: 0, stdout: `${out} matches ${kinds.map((k) => k.crdName).join(', ')}\n`, stderr: '' };
    return {
      code: 1,
      stdout: '',
      stderr: `protean-crd: ${out} differs from the declarations in ${module}:\n${drift.differences.map((d) => `  ${d}`).join('\n')}\nwrite it again with: protean-crd ${module} --out ${out}\n`,
    };
  }
  const yaml = crdYaml(kinds);
  if (out === undefined) return { code: 0, stdout: yaml, stderr: '' };
  await writeFile(out, yaml);
  return { code: 0, stdout: `wrote ${kinds.map((k) => k.crdName).join(', ')} to ${out}\n`, stderr: '' };
}
