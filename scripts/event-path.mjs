#!/usr/bin/env node
// Holds ARCHITECTURE.md's walk of one child event to the code: part of the `docs` step of `pnpm test`.
//
// The section is "## One child event, from the socket to the handler". Its
// hops are the numbered items; each names its symbol in the item's first
// backticked span (`Class.method`, `Class.member`, `function`, a closure's
// name, or `new Class`) and its file in the item's first backticked `*.ts`
// span (an item naming no file is in the file of the item before it). Files
// are found under the `packages/<pkg>/src` directories the "In `packages/<pkg>/src`
// ...:" line above the item names; a file may also name its package
// (`queue/src/X.ts`, `packages/queue/src/X.ts`), which that line must name too.
//
// Checked:
//   - the items are numbered 1..N without a gap;
//   - each hop's file exists, in exactly one package its heading names;
//   - each hop's symbol is defined in that file: a function, class,
//     variable, method, class field, object-literal closure or interface
//     member of that name (for `Class.member`, inside `class Class` or
//     `interface Class`); a call alone does not count, so a renamed or moved
//     symbol fails;
//   - "**N hops over M files**" states the number of hops and of distinct
//     files, and the "(a in pkg, b in pkg, ...)" after it the files per package;
//   - every hop number the text after the list refers to ("Hops 17–21") exists.
// Then a self-check: the same section with hop 1's symbol renamed and the file
// count off by one must report both, so a checker that has gone blind fails too.
//
// Usage: node scripts/event-path.mjs [--file <markdown>]   (default: ARCHITECTURE.md)
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HEADING = '## One child event, from the socket to the handler';
const SYMBOL = /^(?:new\s+)?[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)?$/;
const FILE = /^[\w./-]+\.(?:ts|tsx|mts)$/;

/** The section's text, from its heading to the next `## `. */
export function sectionOf(markdown) {
  const start = markdown.indexOf(`${HEADING}\n`);
  if (start < 0) throw new Error(`ARCHITECTURE.md has no "${HEADING}" section`);
  const next = markdown.indexOf('\n## ', start + HEADING.length);
  return markdown.slice(start, next < 0 ? markdown.length : next);
}

/**
 * The section's hops and totals: `{ hops, stated, refs, problems }`.
 * A hop is `{ n, symbol, file (as written, inherited when absent), packages (its heading's), text }`.
 */
export function parseEventPath(section) {
  const problems = [];
  const hops = [];
  let packages = [];
  let current;
  const lines = section.split('\n');
  const after = [];
  for (const line of lines) {
    const heading = /^In .*:\s*$/.test(line) ? [...line.matchAll(/`packages\/([\w-]+)\/src`/g)].map((m) => m[1]) : [];
    const item = /^(\d+)\.\s+(.*)$/.exec(line);
    if (heading.length > 0) {
      packages = heading;
      current = undefined;
    } else if (item !== null) {
      current = { n: Number(item[1]), text: item[2], packages };
      hops.push(current);
    } else if (current !== undefined && /^\s+\S/.test(line)) {
      current.text += ` ${line.trim()}`;
    } else {
      current = undefined;
      if (hops.length > 0) after.push(line);
    }
  }
  if (hops.length === 0) problems.push('the section has no numbered hops');
  let previousFile;
  hops.forEach((hop, i) => {
    if (hop.n !== i + 1) problems.push(`hop ${hop.n}: numbered ${hop.n}, expected ${i + 1}`);
    if (hop.packages.length === 0) problems.push(`hop ${hop.n}: no "In \`packages/<pkg>/src\`:" line above it`);
    const spans = [...hop.text.matchAll(/`([^`]+)`/g)].map((m) => m[1].trim());
    const first = spans[0];
    if (first === undefined || !SYMBOL.test(first) || FILE.test(first)) {
      problems.push(`hop ${hop.n}: its first backticked span ${first === undefined ? '(none)' : `\`${first}\``} is not a symbol`);
    } else hop.symbol = first;
    hop.file = spans.find((s) => FILE.test(s)) ?? previousFile;
    if (hop.file === undefined) problems.push(`hop ${hop.n}: names no file, and no hop before it does`);
    previousFile = hop.file;
  });
  const text = after.join('\n');
  const total = /\*\*(\d+) hops over (\d+) files\*\*(?:\s*\(([^)]*)\))?/.exec(text);
  let stated;
  if (total === null) problems.push('the section states no "**N hops over M files**"');
  else {
    const perPackage = new Map();
    for (const m of (total[3] ?? '').matchAll(/(\d+)\s+in\s+([\w-]+)/g)) perPackage.set(m[2], Number(m[1]));
    stated = { hops: Number(total[1]), files: Number(total[2]), perPackage };
  }
  // Hop numbers the text after the list refers to: "Hops 17–21", "Hop 8", "Hops 13, 14, 22 and 29", "repeats 19–21".
  const refs = [];
  for (const m of text.matchAll(/\b(\d+)[–-](\d+)\b/g)) refs.push(Number(m[1]), Number(m[2]));
  for (const m of text.matchAll(/\bHops?\s+((?:\d+(?:[–-]\d+)?(?:,\s*|\s+and\s+)?)+)/g)) {
    for (const n of m[1].match(/\d+/g)) refs.push(Number(n));
  }
  return { hops, stated, refs, problems };
}

/** `source` with its comments blanked (block comments, and `//` comments that start a line). */
function withoutComments(source) {
  return source.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/^[ \t]*\/\/.*$/gm, '');
}

const MODIFIERS = '(?:(?:public|private|protected|static|readonly|async|override|abstract|declare|get|set)\\s+)*';

/** Where `name` is defined as a member (method, field, property, closure) in `body`. */
function definesMember(body, name) {
  const n = name.replace(/\$/g, '\\$');
  const method = new RegExp(`^[ \\t]*${MODIFIERS}${n}\\s*(?:<[^>\\n]*>)?\\s*\\(.*$`, 'gm');
  for (const m of body.matchAll(method)) {
    const line = m[0].trimEnd();
    // A definition opens its body or its parameter list, or is a typed signature; a call statement is neither.
    if (line.endsWith('{') || line.endsWith('(') || /\):[^;]*;$/.test(line)) return true;
  }
  const field = new RegExp(`^[ \\t]*${MODIFIERS}${n}\\s*[?!]?\\s*(?::[^=\\n;]*)?=(?![=>])`, 'm');
  const property = new RegExp(`^[ \\t]*${MODIFIERS}${n}\\s*\\??\\s*:`, 'm');
  return field.test(body) || property.test(body);
}

/** True when `source` defines `symbol` (see the header); `source` without comments. */
export function definesSymbol(source, symbol) {
  const isNew = symbol.startsWith('new ');
  const [owner, member] = symbol.replace(/^new\s+/, '').split('.');
  const o = owner.replace(/\$/g, '\\$');
  if (isNew || member !== undefined) {
    const decl = new RegExp(`^(?:export\\s+)?(?:default\\s+)?(?:abstract\\s+|declare\\s+)?(?:class|interface)\\s+${o}\\b`, 'm').exec(
      source,
    );
    if (decl === null) return false;
    if (isNew && member === undefined) return true;
    // Prettier closes a top-level class or interface with `}` at the start of a line.
    const end = source.indexOf('\n}', decl.index);
    return definesMember(source.slice(decl.index, end < 0 ? source.length : end), member);
  }
  const patterns = [
    `\\bfunction\\s*\\*?\\s*${o}\\s*[<(]`,
    `\\b(?:const|let|var)\\s+${o}\\s*[=:]`,
    `\\b(?:class|interface)\\s+${o}\\b`,
    `\\.${o}\\s*=(?![=>])`,
    // A closure in an object literal, or a method's shorthand.
    `^[ \\t]*${o}\\s*:\\s*(?:async\\s*)?(?:\\(|function\\b|[\\w$]+\\s*=>)`,
  ];
  return patterns.some((p) => new RegExp(p, 'm').test(source)) || definesMember(source, owner);
}

/** Resolves a hop's file: `{ path, pkg }` or `{ problem }`. */
function resolveFile(root, hop) {
  const explicit = /^packages\/([\w-]+)\/src\/(.+)$/.exec(hop.file) ?? /^([\w-]+)\/src\/(.+)$/.exec(hop.file);
  if (explicit !== null && existsSync(join(root, 'packages', explicit[1], 'src'))) {
    const [, pkg, rest] = explicit;
    const path = join(root, 'packages', pkg, 'src', rest);
    if (!existsSync(path)) return { problem: `hop ${hop.n}: \`${hop.file}\` does not exist` };
    if (!hop.packages.includes(pkg)) {
      return {
        problem: `hop ${hop.n}: \`${hop.file}\` is in ${pkg}, which the line above the hop does not name (${hop.packages.join(', ')})`,
      };
    }
    return { path, pkg };
  }
  const found = hop.packages.filter((pkg) => existsSync(join(root, 'packages', pkg, 'src', hop.file)));
  const where = hop.packages.map((pkg) => `packages/${pkg}/src`).join(' or ');
  if (found.length === 0) return { problem: `hop ${hop.n}: \`${hop.file}\` is not in ${where}` };
  if (found.length > 1) return { problem: `hop ${hop.n}: \`${hop.file}\` is in more than one of ${where}; name its package` };
  return { path: join(root, 'packages', found[0], 'src', hop.file), pkg: found[0] };
}

/** Every problem of the section in `markdown` against the code under `root`: `{ problems, hops, files }`. */
export function checkEventPath(root, markdown) {
  const { hops, stated, refs, problems } = parseEventPath(sectionOf(markdown));
  const files = new Map();
  const sources = new Map();
  for (const hop of hops) {
    if (hop.file === undefined) continue;
    const resolved = resolveFile(root, hop);
    if (resolved.problem !== undefined) {
      problems.push(resolved.problem);
      continue;
    }
    files.set(resolved.path, resolved.pkg);
    if (hop.symbol === undefined) continue;
    if (!sources.has(resolved.path)) sources.set(resolved.path, withoutComments(readFileSync(resolved.path, 'utf8')));
    if (!definesSymbol(sources.get(resolved.path), hop.symbol)) {
      problems.push(`hop ${hop.n}: \`${hop.symbol}\` is not defined in \`${hop.file}\` (packages/${resolved.pkg}/src)`);
    }
  }
  if (stated !== undefined) {
    if (stated.hops !== hops.length) problems.push(`the section says ${stated.hops} hops; it lists ${hops.length}`);
    if (stated.files !== files.size) problems.push(`the section says ${stated.files} files; its hops name ${files.size}`);
    const counted = new Map();
    for (const pkg of files.values()) counted.set(pkg, (counted.get(pkg) ?? 0) + 1);
    for (const pkg of new Set([...counted.keys(), ...stated.perPackage.keys()])) {
      const says = stated.perPackage.get(pkg) ?? 0;
      const named = counted.get(pkg) ?? 0;
      if (says !== named) problems.push(`the section says ${says} files in ${pkg}; its hops name ${named}`);
    }
  }
  for (const n of new Set(refs)) if (n < 1 || n > hops.length) problems.push(`the text refers to hop ${n}; the hops are 1–${hops.length}`);
  return { problems, hops, files };
}

/** What the checker misses in a copy of `markdown` broken on purpose: [] when it reports both breaks. */
export function selfCheck(root, markdown) {
  const section = sectionOf(markdown);
  const first = parseEventPath(section).hops[0];
  const missed = [];
  if (first?.symbol === undefined) return ['hop 1 has no symbol to rename'];
  const renamed = `${first.symbol}Renamed`;
  const broken = section
    .replace(`\`${first.symbol}\``, `\`${renamed}\``)
    .replace(/\*\*(\d+) hops over (\d+) files\*\*/, (_, h, f) => `**${h} hops over ${Number(f) + 1} files**`);
  const { problems } = checkEventPath(root, markdown.replace(section, broken));
  if (!problems.some((p) => p.startsWith('hop 1:') && p.includes(renamed))) missed.push(`hop 1 renamed to \`${renamed}\` was not reported`);
  if (!problems.some((p) => /says \d+ files;/.test(p))) missed.push('a wrong file count was not reported');
  return missed;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const fileArg = process.argv.indexOf('--file');
  const file = fileArg > 0 ? process.argv[fileArg + 1] : join(root, 'ARCHITECTURE.md');
  const markdown = readFileSync(file, 'utf8');
  const { problems, hops, files } = checkEventPath(root, markdown);
  const missed = selfCheck(root, markdown);
  for (const line of problems) console.log(`event path stale: ${line}`);
  for (const line of missed) console.log(`event path checker blind: ${line}`);
  if (problems.length > 0 || missed.length > 0) process.exit(1);
  console.log(`event path: ${hops.length} hops in ${files.size} files checked`);
}
