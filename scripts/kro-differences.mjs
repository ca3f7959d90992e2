#!/usr/bin/env node
// Lists every deliberate difference from kro. Each one is marked in the code,
// right where the code differs, by a comment starting `kro-diff:` (a `//` line
// comment, or a ` * kro-diff:` line of a doc comment); comment lines that
// directly follow a marker continue it. This script scans the tracked *.ts
// sources (not tests, not dist) and writes docs/kro-differences.md, grouped by
// package and sorted by path, then line.
// Usage: node scripts/kro-differences.mjs [--check]
//   --check: write nothing; exit 1, printing the difference, when the file on
//   disk is not what this script would write.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outPath = join(root, 'docs/kro-differences.md');
const check = process.argv.includes('--check');

const MARKER = 'kro-diff:';
const LINE_MARKER = /(?:^|\s)\/\/\s*kro-diff:(.*)$/;
const DOC_MARKER = /^\s*\/?\*+\s*kro-diff:(.*)$/;

/** Tracked *.ts sources: no tests, no build output, no declaration files. */
function sourceFiles() {
  const out = execFileSync('git', ['ls-files', '-z', '--', '*.ts'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  // A file with unresolved merge stages is listed once per stage: list each path once.
  return [...new Set(out.split('\0'))]
    .filter((path) => path !== '')
    .filter((path) => !/(^|\/)(dist|node_modules)\//.test(path))
    .filter((path) => !/\.test\.ts$/.test(path) && !path.endsWith('.d.ts'))
    .filter((path) => existsSync(join(root, path)))
    .sort(compare);
}

function compare(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

const collapse = (text) => text.replace(/\s+/g, ' ').trim();

/** The marker text: the marker line plus the comment lines that directly follow it. */
function readMarker(lines, index, doc) {
  const first = (doc ? DOC_MARKER : LINE_MARKER).exec(lines[index])[1];
  const parts = [first];
  let end = index;
  for (let i = index + 1; i < lines.length; i++) {
    const line = lines[i];
    if (line.includes(MARKER)) break;
    const m = doc ? /^\s*\*(?!\/)\s?(.*)$/.exec(line) : /^\s*\/\/(.*)$/.exec(line);
    if (m === null) break;
    const text = m[1].trim();
    // A blank comment line, a TSDoc tag or the end of the block ends the marker.
    if (text === '' || (doc && (text.startsWith('@') || text.startsWith('*/')))) break;
    parts.push(text.replace(/\s*\*\/\s*$/, ''));
    end = i;
    if (doc && line.includes('*/')) break;
  }
  return { text: collapse(parts.join(' ')).replace(/\s*\*\/$/, ''), end };
}

const KEYWORDS = new Set([
  'if',
  'for',
  'while',
  'switch',
  'catch',
  'return',
  'function',
  'else',
  'do',
  'try',
  'with',
  'new',
  'await',
  'typeof',
]);

/** The name a line declares, if it starts a declaration. */
function declaredName(line) {
  let m = /^\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*)/.exec(line);
  if (m) return { name: m[1], container: true };
  m = /^\s*(?:export\s+)?(?:declare\s+)?(?:interface|type|enum)\s+([A-Za-z_$][\w$]*)/.exec(line);
  if (m) return { name: m[1], container: true };
  m = /^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)/.exec(line);
  if (m) return { name: m[1], container: false };
  m = /^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)/.exec(line);
  if (m) return { name: m[1], container: false };
  m =
    /^\s+(?:(?:public|private|protected|static|async|override|readonly|abstract|get|set)\s+)*(#?[A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\s*\(/.exec(
      line,
    );
  if (m && !KEYWORDS.has(m[1]) && !/=>\s*\{\s*$/.test(line) && !/;\s*$/.test(line)) return { name: m[1], container: false, member: true };
  m = /^\s+(?:(?:public|private|protected|static|readonly|override|declare)\s+)*(#?[A-Za-z_$][\w$]*)\??\s*[:=]/.exec(line);
  if (m && !KEYWORDS.has(m[1])) return { name: m[1], container: false, member: true };
  return undefined;
}

const indentOf = (line) => /^\s*/.exec(line)[0].length;

/** `Class.member`, `function` or `Class` around the declaration at `index` (or `undefined`). */
function qualify(lines, index, decl) {
  if (!decl.member) return decl.name;
  const indent = indentOf(lines[index]);
  for (let i = index - 1; i >= 0; i--) {
    const line = lines[i];
    if (line.trim() === '' || indentOf(line) >= indent) continue;
    const outer = declaredName(line);
    if (outer?.container) return `${outer.name}.${decl.name}`;
    if (indentOf(line) === 0) break;
  }
  return decl.name;
}

/** The declaration a marker sits in (a `//` marker) or documents (a doc-comment marker). */
function enclosingName(lines, index, doc, end) {
  if (doc) {
    let close = end;
    while (close < lines.length && !lines[close].includes('*/')) close++;
    for (let i = close + 1; i < lines.length; i++) {
      if (lines[i].trim() === '' || /^\s*@/.test(lines[i])) continue;
      const decl = declaredName(lines[i]);
      return decl === undefined ? undefined : qualify(lines, i, decl);
    }
    return undefined;
  }
  let indent = indentOf(lines[index]);
  for (let i = index - 1; i >= 0 && indent > 0; i--) {
    const line = lines[i];
    if (line.trim() === '' || indentOf(line) >= indent) continue;
    indent = indentOf(line);
    const decl = declaredName(line);
    if (decl !== undefined && /[{(]\s*$/.test(line.replace(/\/\/.*$/, '').trimEnd())) return qualify(lines, i, decl);
  }
  return undefined;
}

function scan() {
  const markers = [];
  for (const path of sourceFiles()) {
    const lines = readFileSync(join(root, path), 'utf8').split(/\r?\n/);
    lines.forEach((line, index) => {
      if (!line.includes(MARKER)) return;
      const doc = DOC_MARKER.test(line);
      if (!doc && !LINE_MARKER.test(line)) return;
      const { text, end } = readMarker(lines, index, doc);
      markers.push({ path, line: index + 1, name: enclosingName(lines, index, doc, end), text });
    });
  }
  return markers;
}

/** The workspace package a file belongs to: its nearest package.json below the root. */
function packageOf(path) {
  for (let dir = dirname(path); dir !== '.' && dir !== ''; dir = dirname(dir)) {
    const manifest = join(root, dir, 'package.json');
    if (existsSync(manifest)) return { dir, name: JSON.parse(readFileSync(manifest, 'utf8')).name ?? dir };
  }
  return { dir: '.', name: 'repository root' };
}

/** A table cell: `|` escaped, the first letter capitalized. */
const cell = (text) => (text.charAt(0).toUpperCase() + text.slice(1)).replace(/\|/g, '\\|');

function render(markers) {
  const groups = new Map();
  for (const marker of markers) {
    const pkg = packageOf(marker.path);
    if (!groups.has(pkg.dir)) groups.set(pkg.dir, { ...pkg, markers: [] });
    groups.get(pkg.dir).markers.push(marker);
  }
  const docsDir = dirname(outPath);
  const out = [
    '# Deliberate differences from kro',
    '',
    '<!-- Generated by scripts/kro-differences.mjs from the `kro-diff:` markers in the sources; do not edit by hand. -->',
    '',
    "Protean's names and semantics mirror kro's `dynamiccontroller`; each place where it deliberately does something",
    'else is marked `kro-diff:` in the code, and listed here (' + markers.length + ' in all).',
    'Regenerate this file with `node scripts/kro-differences.mjs`; `--check` fails when it is out of date.',
  ];
  for (const group of [...groups.values()].sort((a, b) => compare(a.dir, b.dir))) {
    out.push('', `## ${group.name}`, '', '| where | in | difference |', '| --- | --- | --- |');
    for (const m of group.markers) {
      const target = relative(docsDir, join(root, m.path)).split(sep).join('/');
      const shown = group.dir === '.' ? m.path : m.path.slice(group.dir.length + 1);
      // No line numbers: an edit above a marker must not make this list stale.
      out.push(`| [${shown}](${target}) | ${m.name === undefined ? '' : '`' + m.name + '`'} | ${cell(m.text)} |`);
    }
  }
  return out.join('\n') + '\n';
}

/** A line diff (longest common subsequence) of `from` to `to`, as `-`/`+` lines. */
function diffLines(from, to) {
  const a = from.split('\n');
  const b = to.split('\n');
  const lcs = Array.from({ length: a.length + 1 }, () => new Array(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  }
  const out = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      i++;
      j++;
    } else if (i < a.length && (j === b.length || lcs[i + 1][j] >= lcs[i][j + 1])) {
      out.push(`- ${a[i++]}`);
    } else {
      out.push(`+ ${b[j++]}`);
    }
  }
  return out;
}

const markers = scan();
const empty = markers.filter((m) => m.text === '');
if (empty.length > 0) {
  for (const m of empty) console.error(`${m.path}:${m.line}: a kro-diff marker needs a sentence saying what differs and why`);
  process.exit(1);
}
const expected = render(markers);
const relOut = relative(root, outPath);

if (check) {
  const actual = existsSync(outPath) ? readFileSync(outPath, 'utf8') : '';
  if (actual === expected) {
    console.log(`${relOut} is up to date (${markers.length} kro-diff markers)`);
  } else {
    console.log(`${relOut} is out of date; run \`node scripts/kro-differences.mjs\` and commit the result. Changes it would make:`);
    for (const line of diffLines(actual, expected)) console.log(line);
    process.exit(1);
  }
} else {
  writeFileSync(outPath, expected);
  console.log(`wrote ${relOut} (${markers.length} kro-diff markers)`);
}
