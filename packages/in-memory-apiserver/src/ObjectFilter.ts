import { parseSelector, type Selector } from '@protean/core';
import { badRequest } from './statusErrors.js';
import type { KubeObject } from './types.js';

interface FieldTerm {
  field: 'metadata.name' | 'metadata.namespace';
  value: string;
  equal: boolean;
}

function parseFieldSelector(text: string): FieldTerm[] {
  const terms: FieldTerm[] = [];
  for (const part of text.split(',')) {
    const t = part.trim();
    if (t === '') continue;
    const m = /^([^=!]+?)\s*(==|=|!=)\s*(.*)$/.exec(t);
    if (m === null) throw badRequest(`invalid selector: '${text}'; can't understand '${t}'`);
    const field = (m[1] as string).trim();
    if (field !== 'metadata.name' && field !== 'metadata.namespace') {
      throw badRequest(`field label not supported: ${field}`);
    }
    terms.push({ field, value: (m[3] as string).trim(), equal: m[2] !== '!=' });
  }
  return terms;
}

/**
 * The `labelSelector` and `fieldSelector` of a list or watch request.
 *
 * Easy to get wrong: field selectors support only `metadata.name` and
 * `metadata.namespace` (what every resource supports); others are rejected
 * with 400 as the real server rejects unsupported field labels.
 */
export class ObjectFilter {
  private constructor(
    private readonly label: Selector | undefined,
    private readonly fields: readonly FieldTerm[],
  ) {}

  /** Parses the query's selectors; throws 400 BadRequest for malformed ones. */
  static fromQuery(query: URLSearchParams): ObjectFilter {
    const labelText = query.get('labelSelector') ?? '';
    const fieldText = query.get('fieldSelector') ?? '';
    let label: Selector | undefined;
    if (labelText.trim() !== '') {
      try {
        label = parseSelector(labelText);
      } catch (err) {
        throw badRequest(`unable to parse requirement: ${(err as Error).message}`);
      }
    }
    return new ObjectFilter(label, parseFieldSelector(fieldText));
  }

  /** The filter that lets everything through. */
  static readonly everything = new ObjectFilter(undefined, []);

  /** True when no selector restricts the result (the real server then reports remainingItemCount). */
  isEmpty(): boolean {
    return (this.label === undefined || this.label.empty()) && this.fields.length === 0;
  }

  matches(obj: KubeObject): boolean {
    if (this.label !== undefined && !this.label.matches(obj.metadata.labels ?? {})) return false;
    for (const t of this.fields) {
      const actual = t.field === 'metadata.name' ? obj.metadata.name : (obj.metadata.namespace ?? '');
      if ((actual === t.value) !== t.equal) return false;
    }
    return true;
  }
}
