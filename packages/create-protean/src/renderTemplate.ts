/** A `{{placeholder}}` in a template that has no value: a template and the generator disagree. */
export class UnknownPlaceholderError extends Error {
  override readonly name = 'UnknownPlaceholderError';
  constructor(
    readonly file: string,
    readonly placeholder: string,
  ) {
    super(`template ${file} uses {{${placeholder}}}, which create-protean has no value for`);
  }
}

/** The placeholder syntax: `{{name}}`, letters only; in TypeScript templates only inside string literals. */
export const PLACEHOLDER = /\{\{([A-Za-z]+)\}\}/g;

/** The optional parts of a project a template can hold blocks for (`// #if webhooks` ... `// #endif`). */
export const FEATURES = ['webhooks'] as const;

/** One of {@link FEATURES}. */
export type Feature = (typeof FEATURES)[number];

/** A feature block that does not open or close as it should, or names a feature the generator does not know. */
export class TemplateBlockError extends Error {
  override readonly name = 'TemplateBlockError';
  constructor(
    readonly file: string,
    readonly line: number,
    problem: string,
  ) {
    super(`template ${file}, line ${line}: ${problem}`);
  }
}

const BLOCK_START = /^\s*(?:\/\/|#|<!--) #if (!?)([a-z-]+)(?: -->)?\s*$/;
const BLOCK_END = /^\s*(?:\/\/|#|<!--) #endif(?: -->)?\s*$/;

/**
 * Keeps or drops the feature blocks of `text`: the lines between
 * `// #if <feature>` (`# #if <feature>` in YAML, `<!-- #if <feature> -->`
 * in Markdown) and `// #endif` (`# #endif`, `<!-- #endif -->`) stay
 * when the feature is on, those of `#if !<feature>` when it is off; the
 * marker lines themselves go. Blocks do not nest. Both kinds of block
 * stay valid code in the template (the workspace typechecks them together).
 */
export function renderBlocks(text: string, features: ReadonlySet<Feature>, file: string): string {
  if (!text.includes('#if ') && !text.includes('#endif')) return text;
  const out: string[] = [];
  let open: { line: number; keep: boolean } | undefined;
  text.split('\n').forEach((line, index) => {
    const start = BLOCK_START.exec(line);
    if (start !== null) {
      if (open !== undefined) throw new TemplateBlockError(file, index + 1, `#if inside the block opened at line ${open.line}`);
      const feature = start[2] as Feature;
      if (!(FEATURES as readonly string[]).includes(feature)) {
        throw new TemplateBlockError(file, index + 1, `no feature ${JSON.stringify(feature)} (known: ${FEATURES.join(', ')})`);
      }
      open = { line: index + 1, keep: features.has(feature) !== (start[1] === '!') };
      return;
    }
    if (BLOCK_END.test(line)) {
      if (open === undefined) throw new TemplateBlockError(file, index + 1, '#endif without #if');
      open = undefined;
      return;
    }
    if (open === undefined || open.keep) out.push(line);
  });
  if (open !== undefined) throw new TemplateBlockError(file, open.line, '#if without #endif');
  return out.join('\n');
}

/**
 * Replaces every `{{key}}` in `text` with `values[key]`, after keeping the
 * blocks of the `features` asked for ({@link renderBlocks}). The one
 * substitution mechanism of the templates: they stay valid TypeScript,
 * YAML and Markdown with the placeholders in, and are typechecked as such.
 */
export function renderTemplate(
  text: string,
  values: Readonly<Record<string, string>>,
  file: string,
  features: ReadonlySet<Feature> = new Set(),
): string {
  return renderBlocks(text, features, file).replace(PLACEHOLDER, (_match, key: string) => {
    const value = values[key];
    if (value === undefined) throw new UnknownPlaceholderError(file, key);
    return value;
  });
}
