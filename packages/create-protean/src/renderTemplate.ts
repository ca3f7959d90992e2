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

/**
 * Replaces every `{{key}}` in `text` with `values[key]`. The one
 * substitution mechanism of the templates: they stay valid TypeScript,
 * YAML and Markdown with the placeholders in, and are typechecked as such.
 */
export function renderTemplate(text: string, values: Readonly<Record<string, string>>, file: string): string {
  return text.replace(PLACEHOLDER, (_match, key: string) => {
    const value = values[key];
    if (value === undefined) throw new UnknownPlaceholderError(file, key);
    return value;
  });
}
