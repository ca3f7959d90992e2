import type { Requirement } from './Selector.js';

/**
 * Prints one requirement in the string syntax, as Kubernetes prints it:
 * `a=b`, `a!=b`, `a in (x,y)`, `a notin (x,y)`, `a`, `!a`.
 *
 * Easy to get wrong: a single-value `In`/`NotIn` prints as `=`/`!=`, and
 * `values` must already be sorted and deduplicated for the output to be
 * canonical.
 */
export function formatRequirement(r: Requirement): string {
  switch (r.operator) {
    case 'In':
      return r.values.length === 1 ? `${r.key}=${r.values[0]}` : `${r.key} in (${r.values.join(',')})`;
    case 'NotIn':
      return r.values.length === 1 ? `${r.key}!=${r.values[0]}` : `${r.key} notin (${r.values.join(',')})`;
    case 'Exists':
      return r.key;
    case 'DoesNotExist':
      return `!${r.key}`;
  }
}
