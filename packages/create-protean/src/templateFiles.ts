import { readdirSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import { LAYOUTS, type Layout } from './Layout.js';
import { FEATURES, type Feature } from './renderTemplate.js';

/** One file of the templates and where it goes in a generated project (both `/`-separated, relative). */
export interface TemplateFile {
  readonly source: string;
  readonly target: string;
}

/**
 * Template files never copied: the workspace's typecheck of the templates, and its stand-ins for the layout's
 * src/app.ts and the webhooks' src/admission.ts.
 */
const NOT_COPIED = new Set(['tsconfig.check.json', 'src/app.ts', 'src/admission.ts']);

/**
 * The files a project of `layout` gets from `templatesDir`, by these rules:
 * - a file named `<base>.<layout>.<ext>` belongs to that layout only and is
 *   written as `<base>.<ext>` (`src/app.sharding.ts` → `src/app.ts`);
 * - a file named `<base>.<feature>.<rest>` belongs to projects with that
 *   feature only, written as `<base>.<rest>` (`src/admission.webhooks.ts`
 *   → `src/admission.ts`, with `--webhooks`);
 * - a leading `_` of a file or directory name becomes `.` (`_gitignore` →
 *   `.gitignore`, `_github/` → `.github/`: npm leaves dotfiles like
 *   `.gitignore` out of a published package);
 * - a trailing `.template` is dropped (`eslint.config.js.template` →
 *   `eslint.config.js`): a file the workspace's own tools would take for
 *   their configuration;
 * - every other file is copied as it is.
 */
export function templateFiles(templatesDir: string, layout: Layout, features: ReadonlySet<Feature> = new Set()): TemplateFile[] {
  const files: TemplateFile[] = [];
  for (const source of listFiles(templatesDir)) {
    if (NOT_COPIED.has(source)) continue;
    const dir = posix
      .dirname(source)
      .split('/')
      .map((segment) => (segment.startsWith('_') ? `.${segment.slice(1)}` : segment))
      .join('/');
    let base = posix.basename(source);
    const marked = LAYOUTS.find((l) => base.includes(`.${l}.`));
    if (marked !== undefined) {
      if (marked !== layout) continue;
      base = base.replace(`.${marked}.`, '.');
    }
    const feature = FEATURES.find((f) => base.includes(`.${f}.`));
    if (feature !== undefined) {
      if (!features.has(feature)) continue;
      base = base.replace(`.${feature}.`, '.');
    }
    if (base.startsWith('_')) base = `.${base.slice(1)}`;
    if (base.endsWith('.template')) base = base.slice(0, -'.template'.length);
    files.push({ source, target: dir === '.' ? base : `${dir}/${base}` });
  }
  return files.sort((a, b) => a.target.localeCompare(b.target));
}

function listFiles(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'));
}
