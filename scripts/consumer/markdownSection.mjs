// Reads commands and code blocks out of a README section, so the consumer
// test runs exactly what the documentation tells a user to run.

/**
 * The fenced code blocks (`{ lang, text }`) of the section of `markdown`
 * that starts with a heading whose text is `heading` (any level), up to the
 * next heading of the same or a higher level.
 * Easy to get wrong: throws when the heading is missing, so a renamed
 * section fails the test instead of silently testing nothing.
 */
export function sectionCodeBlocks(markdown, heading) {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => /^#{1,6} /.test(l) && l.replace(/^#+ /, '').trim() === heading);
  if (start === -1) throw new Error(`no "${heading}" heading`);
  const level = /^#+/.exec(lines[start])[0].length;
  const blocks = [];
  let open;
  for (const line of lines.slice(start + 1)) {
    const fence = /^```(\S*)/.exec(line);
    if (open === undefined) {
      const h = /^(#{1,6}) /.exec(line);
      if (h !== null && h[1].length <= level) break;
      if (fence !== null) open = { lang: fence[1], lines: [] };
    } else if (fence !== null) {
      blocks.push({ lang: open.lang, text: `${open.lines.join('\n')}\n` });
      open = undefined;
    } else {
      open.lines.push(line);
    }
  }
  return blocks;
}

/**
 * The `npm install` commands of the first `sh` block of a section, as
 * argument arrays without the leading `npm` (e.g. `['install', '-D', 'x']`).
 * Backslash-continued lines are joined; comments and other commands are
 * ignored. Only plain words are supported (no quotes, no substitutions).
 */
export function npmInstallCommands(markdown, heading) {
  const block = sectionCodeBlocks(markdown, heading).find((b) => b.lang === 'sh');
  if (block === undefined) throw new Error(`no sh block under "${heading}"`);
  const commands = block.text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.replace(/#.*$/, '').trim())
    .filter((l) => /^npm (install|i) /.test(l))
    .map((l) => l.split(/\s+/).slice(1));
  if (commands.length === 0) throw new Error(`no npm install command in the sh block under "${heading}"`);
  return commands;
}
