/** The directory a project was to be generated into exists and holds files: nothing was written. */
export class TargetNotEmptyError extends Error {
  override readonly name = 'TargetNotEmptyError';
  constructor(
    readonly directory: string,
    readonly entries: readonly string[],
  ) {
    const shown = entries.slice(0, 5).join(', ') + (entries.length > 5 ? `, ... (${entries.length} entries)` : '');
    super(`target directory ${directory} is not empty (${shown}): choose a new directory or empty this one`);
  }
}
