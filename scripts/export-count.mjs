#!/usr/bin/env node
// Counts the exported names of each published package from its committed API
// report (`packages/*/etc/*.api.md`, see scripts/api-report.mjs): every
// `export ...` declaration in the report's ```ts block. A name declared more
// than once (function overloads, a class merged with an interface) counts
// once; `export { a, b }` counts each name; `export * from '...'` cannot be
// counted from the report and is listed as a wildcard re-export.
//
// Usage: node scripts/export-count.mjs [--json]
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Exported names and wildcard re-exports of one API report's text. */
export function exportsOfReport(text) {
  const start = text.indexOf('```ts');
  const end = text.indexOf('```', start + 5);
  const body = start === -1 ? '' : text.slice(start + 5, end === -1 ? undefined : end);
  const names = new Set();
  const wildcards = [];
  for (const line of body.split('\n')) {
    const braces = /^export\s+(?:type\s+)?\{([^}]*)\}/.exec(line);
    if (braces) {
      for (const part of braces[1].split(',')) {
        const name = part
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)
          .pop()
          ?.trim();
        if (name) names.add(name);
      }
      continue;
    }
    const star = /^export\s+\*\s+(?:as\s+(\w+)\s+)?from\s+['"]([^'"]+)['"]/.exec(line);
    if (star) {
      if (star[1]) names.add(star[1]);
      else wildcards.push(star[2]);
      continue;
    }
    const decl =
      /^export\s+(?:declare\s+)?(?:default\s+)?(?:abstract\s+)?(?:const\s+enum|class|interface|type|function\*?|const|let|var|enum|namespace)\s+([A-Za-z_$][\w$]*)/.exec(
        line,
      );
    if (decl) names.add(decl[1]);
  }
  return { names: [...names].sort(), wildcards };
}

const rows = [];
for (const dir of readdirSync(join(root, 'packages')).sort()) {
  const etc = join(root, 'packages', dir, 'etc');
  if (!existsSync(etc)) continue;
  for (const file of readdirSync(etc).filter((f) => f.endsWith('.api.md'))) {
    const text = readFileSync(join(etc, file), 'utf8');
    const pkg = /API Report File for "([^"]+)"/.exec(text)?.[1] ?? `${dir}/${file}`;
    rows.push({ pkg, ...exportsOfReport(text) });
  }
}

const total = rows.reduce((sum, row) => sum + row.names.length, 0);
if (process.argv.includes('--json')) {
  console.log(JSON.stringify({ total, packages: Object.fromEntries(rows.map((r) => [r.pkg, r.names])) }, null, 2));
} else {
  const width = Math.max(...rows.map((r) => r.pkg.length));
  for (const row of rows) {
    const extra = row.wildcards.length ? `  (+ export * from ${row.wildcards.join(', ')})` : '';
    console.log(`${row.pkg.padEnd(width)}  ${String(row.names.length).padStart(4)}${extra}`);
  }
  console.log(`${'total'.padEnd(width)}  ${String(total).padStart(4)}`);
}
