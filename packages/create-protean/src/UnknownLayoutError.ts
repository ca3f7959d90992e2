import { InvalidOptionError } from './InvalidOptionError.js';
import { LAYOUTS } from './Layout.js';

/** A `--layout` that is not one of {@link LAYOUTS}. */
export class UnknownLayoutError extends InvalidOptionError {
  override readonly name = 'UnknownLayoutError';
  constructor(value: string) {
    super('layout', value, `the layouts are ${LAYOUTS.join(' and ')}`);
  }
}
