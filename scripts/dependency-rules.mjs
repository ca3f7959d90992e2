#!/usr/bin/env node
// Holds ARCHITECTURE.md's dependency graph to the code: the `deps` step of `pnpm test`.
//
// The graph is the fenced block under "### Dependency graph". Each line reads
// `a, b → x, y` (a and b import x and y at run time, and nothing else of ours),
// `a → (nothing of ours)`, `a ↛ pkg, pkg` (a never imports those npm packages),
// or, for the private packages, `a → any of the above`. A line starting with
// spaces continues the names of the line before it.
//
// Checked for every workspace package, over the files it runs (src/ and bin/,
// tests and their *.testkit.ts support aside):
//   - it is in the graph;
//   - every `@protean/*` it imports is an edge of the graph, and every edge is
//     imported somewhere (a stale edge is drift too);
//   - a published package declares each `@protean/*` it imports in
//     dependencies or peerDependencies, declares none it does not import, and
//     never depends on a private package;
//   - no `↛` package is imported;
//   - the graph has no cycle.
// Then a self-check: the same rules over the same files plus one forbidden
// import and minus one edge's imports must report both, so a checker that
// has gone blind fails the step too.
//
// Usage: node scripts/dependency-rules.mjs
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const WORKSPACE_DIRS = ['packages', 'examples'];
const SINGLE_PACKAGES = ['bench', 'docs/guide'];
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'coverage']);

/** The graph block of ARCHITECTURE.md: `{ edges: Map<name, Set|'any'>, forbidden: Map<name, Set> }`. */
export function parseGraph(markdown) {
  const start = markdown.indexOf('### Dependency graph');
  if (start < 0) throw new Error('ARCHITECTURE.md has no "### Dependency graph" section');
  const open = markdown.indexOf('```', start);
  const close = markdown.indexOf('```', open + 3);
  if (open < 0 || close < 0) throw new Error('the "### Dependency graph" section has no fenced block');
  const lines = markdown.slice(markdown.indexOf('\n', open) + 1, close).split('\n');
  const edges = new Map();
  const forbidden = new Map();
  let last;
  for (const line of lines) {
    if (line.trim() === '') continue;
    const arrow = line.includes('↛') ? '↛' : line.includes('→') ? '→' : undefined;
    if (arrow === undefined) {
      if (!/^\s/.test(line) || last === undefined) throw new Error(`dependency graph: cannot read line "${line}"`);
      // A continuation: more names for the line before.
      for (const name of splitNames(line)) last.table.set(name, last.value);
      continue;
    }
    const [left, right] = line.split(arrow);
    const table = arrow === '↛' ? forbidden : edges;
    let value;
    if (arrow === '↛') value = new Set(splitNames(right));
    else if (/^\s*\(nothing of ours\)/.test(right)) value = new Set();
    else if (/^\s*any of the above/.test(right)) value = 'any';
    else value = new Set(splitNames(right));
    for (const name of splitNames(left)) {
      if (table === edges && edges.has(name)) throw new Error(`dependency graph: "${name}" has two lines`);
      table.set(name, value);
    }
    last = { table, value };
  }
  return { edges, forbidden };
}

function splitNames(text) {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Every workspace package: `{ name (graph name), dir, manifest, imports: Map<specifier, file[]> }`. */
export function readWorkspace(root) {
  const dirs = WORKSPACE_DIRS.flatMap((parent) =>
    readdirSync(join(root, parent), { withFileTypes: true })
      .filter((e) => e.isDirectory() && existsSync(join(root, parent, e.name, 'package.json')))
      .map((e) => join(parent, e.name)),
  ).concat(SINGLE_PACKAGES.filter((dir) => existsSync(join(root, dir, 'package.json'))));
  return dirs.map((dir) => {
    const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
    const imports = new Map();
    for (const sub of ['src', 'bin', 'lib']) {
      for (const file of sourceFiles(join(root, dir, sub))) {
        for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
          const list = imports.get(specifier) ?? [];
          list.push(relative(root, file));
          imports.set(specifier, list);
        }
      }
    }
    // Packages under packages/ go by their folder name; the others by their path.
    const name = dir.startsWith('packages/') ? dir.slice('packages/'.length) : dir;
    return { name, dir, manifest, imports };
  });
}

function sourceFiles(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIPPED_DIRS.has(e.name)) sourceFiles(path, out);
    } else if (/\.(ts|mts|js|mjs)$/.test(e.name) && !/\.d\.ts$|\.test\.|\.testkit\.|\.bench\./.test(e.name)) {
      out.push(path);
    }
  }
  return out;
}

/** The package each static or dynamic import of `text` names (`@scope/pkg` or `pkg`), relative imports and node: aside. */
export function importsOf(text) {
  const found = new Set();
  const pattern = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"]([^'"./][^'"]*)['"]/g;
  for (const m of text.matchAll(pattern)) {
    const spec = m[1];
    if (spec.startsWith('node:')) continue;
    const parts = spec.split('/');
    found.add(spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]);
  }
  return found;
}

/** Every violation of the rules, as one line each; empty when the graph and the code agree. */
export function checkRules(graph, workspace) {
  const problems = [];
  const byPackageName = new Map(workspace.map((p) => [p.manifest.name, p]));
  const known = new Set(workspace.map((p) => p.name));
  for (const [name, targets] of graph.edges) {
    if (!known.has(name)) problems.push(`ARCHITECTURE.md's graph names "${name}", which is not a workspace package`);
    if (targets !== 'any')
      for (const t of targets)
        if (!known.has(t)) problems.push(`ARCHITECTURE.md's graph: ${name} → "${t}", which is not a workspace package`);
  }
  for (const pkg of workspace) {
    const allowed = graph.edges.get(pkg.name);
    if (allowed === undefined) {
      problems.push(`${pkg.dir} (${pkg.manifest.name}) is not in ARCHITECTURE.md's dependency graph`);
      continue;
    }
    const ours = new Map();
    for (const [spec, files] of pkg.imports) {
      const target = byPackageName.get(spec);
      if (target !== undefined && target !== pkg) ours.set(target.name, { spec, files });
    }
    if (allowed !== 'any') {
      for (const [target, { spec, files }] of ours) {
        if (!allowed.has(target))
          problems.push(
            `${files[0]} imports ${spec}; ARCHITECTURE.md's graph allows ${pkg.name} → ${[...allowed].join(', ') || '(nothing of ours)'}`,
          );
      }
      for (const target of allowed) {
        if (!ours.has(target))
          problems.push(`ARCHITECTURE.md's graph says ${pkg.name} → ${target}, but nothing ${pkg.dir} runs imports it`);
      }
    }
    for (const banned of graph.forbidden.get(pkg.name) ?? []) {
      const files = pkg.imports.get(banned);
      if (files !== undefined) problems.push(`${files[0]} imports ${banned}, which ARCHITECTURE.md says ${pkg.name} never imports`);
    }
    if (pkg.manifest.private === true) continue;
    const declared = new Set([...Object.keys(pkg.manifest.dependencies ?? {}), ...Object.keys(pkg.manifest.peerDependencies ?? {})]);
    for (const [, { spec, files }] of ours) {
      if (!declared.has(spec))
        problems.push(`${files[0]} imports ${spec}, missing from ${pkg.dir}/package.json's dependencies and peerDependencies`);
    }
    for (const spec of declared) {
      const target = byPackageName.get(spec);
      if (target === undefined) continue;
      if (target.manifest.private === true) problems.push(`${pkg.manifest.name} is published but depends on the private ${spec}`);
      else if (!ours.has(target.name)) problems.push(`${pkg.dir}/package.json declares ${spec}, which nothing it runs imports`);
    }
  }
  const cycle = findCycle(graph.edges);
  if (cycle !== undefined) problems.push(`ARCHITECTURE.md's graph has a cycle: ${cycle.join(' → ')}`);
  return problems;
}

function findCycle(edges) {
  const state = new Map();
  const path = [];
  const visit = (name) => {
    if (state.get(name) === 'done') return undefined;
    if (state.get(name) === 'open') return [...path.slice(path.indexOf(name)), name];
    state.set(name, 'open');
    path.push(name);
    const targets = edges.get(name);
    for (const t of targets === 'any' || targets === undefined ? [] : targets) {
      const found = visit(t);
      if (found !== undefined) return found;
    }
    path.pop();
    state.set(name, 'done');
    return undefined;
  };
  for (const name of edges.keys()) {
    const found = visit(name);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * The checker must see what it is meant to see: over the same graph and
 * files, an added import that no edge allows and an edge whose imports are
 * taken away must each be reported. Returns what went unreported.
 */
export function selfCheck(graph, workspace) {
  const missed = [];
  const strict = workspace.find((p) => {
    const allowed = graph.edges.get(p.name);
    return allowed !== undefined && allowed !== 'any' && p.manifest.private !== true;
  });
  const outside = workspace.find(
    (p) => strict !== undefined && p !== strict && p.manifest.private !== true && !graph.edges.get(strict.name).has(p.name),
  );
  if (strict === undefined || outside === undefined) return ['no published package with a forbidden neighbour to try'];
  const injected = workspace.map((p) =>
    p === strict ? { ...p, imports: new Map([...p.imports, [outside.manifest.name, [`${p.dir}/src/injected.ts`]]]) } : p,
  );
  if (!checkRules(graph, injected).some((line) => line.startsWith(`${strict.dir}/src/injected.ts imports ${outside.manifest.name};`)))
    missed.push(`an import of ${outside.manifest.name} added to ${strict.dir} went unreported`);
  const withEdge = workspace.find((p) => {
    const allowed = graph.edges.get(p.name);
    return allowed !== undefined && allowed !== 'any' && allowed.size > 0;
  });
  const [dropped] = graph.edges.get(withEdge.name);
  const droppedSpec = workspace.find((p) => p.name === dropped).manifest.name;
  const stripped = workspace.map((p) =>
    p === withEdge ? { ...p, imports: new Map([...p.imports].filter(([spec]) => spec !== droppedSpec)) } : p,
  );
  if (!checkRules(graph, stripped).some((line) => line.includes(`says ${withEdge.name} → ${dropped}, but nothing`)))
    missed.push(`the edge ${withEdge.name} → ${dropped} with no import left went unreported`);
  return missed;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const graph = parseGraph(readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8'));
  const workspace = readWorkspace(root);
  const problems = checkRules(graph, workspace);
  const missed = selfCheck(graph, workspace);
  for (const line of problems) console.log(`dependency rule broken: ${line}`);
  for (const line of missed) console.log(`dependency checker blind: ${line}`);
  if (problems.length > 0 || missed.length > 0) process.exit(1);
  const edgeCount = [...graph.edges.values()].reduce((n, t) => n + (t === 'any' ? 0 : t.size), 0);
  console.log(`dependency rules hold: ${workspace.length} packages, ${edgeCount} edges in ARCHITECTURE.md's graph`);
}
