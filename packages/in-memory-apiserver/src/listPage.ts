import type { ObjectFilter } from './ObjectFilter.js';
import type { ResourceTable } from './ResourceTable.js';
import { badRequest, expired, tooLargeResourceVersion } from './statusErrors.js';
import type { KubeObject } from './types.js';

/** The list options of a LIST request. */
export interface ListRequest {
  /** Restrict to one namespace (undefined = all namespaces / cluster-scoped). */
  namespace?: string | undefined;
  filter: ObjectFilter;
  /** Maximum items in this page (undefined or 0 = no limit). */
  limit?: number | undefined;
  continueToken?: string | undefined;
  resourceVersion?: string | undefined;
  resourceVersionMatch?: string | undefined;
}

/** One page of a LIST: the items and the list metadata to send. */
export interface ListPage {
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

const TOO_OLD_RV = 'The resourceVersion for the provided list is too old.';
const TOO_OLD_CONTINUE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

interface ContinueToken {
  rv: number;
  /** The last key served; the next page starts after it. */
  after: string;
}

function encodeContinue(rv: number, after: string): string {
  // Same shape as the real server's token, though clients must treat it as opaque.
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start: `${after}\u0000` })).toString('base64');
}

function decodeContinue(token: string): ContinueToken {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
  } catch {
    throw badRequest('invalid continue token: continue key is not valid: illegal base64 data or JSON');
  }
  const p = parsed as { v?: unknown; rv?: unknown; start?: unknown };
  if (p.v !== 'meta.k8s.io/v1' || typeof p.rv !== 'number' || typeof p.start !== 'string' || !p.start.endsWith('\u0000')) {
    throw badRequest('invalid continue token: continue key is not valid: server does not recognize this encoded key');
  }
  return { rv: p.rv, after: p.start.slice(0, -1) };
}

/**
 * How the table looked at `rv`: for each key changed since, its object then
 * (`null` = absent then). Undefined when nothing changed.
 */
function snapshotOverrides(table: ResourceTable, rv: number): Map<string, KubeObject | null> | undefined {
  const events = table.eventsAfter(rv);
  if (events.length === 0) return undefined;
  const overrides = new Map<string, KubeObject | null>();
  for (const e of events) {
    if (!overrides.has(e.key)) overrides.set(e.key, e.prev ?? null);
  }
  return overrides;
}

function parseRv(text: string): number {
  if (!/^[0-9]+$/.test(text)) throw badRequest(`Invalid value: "${text}": resourceVersion must be a non-negative integer`);
  return Number(text);
}

/**
 * Serves one page of a LIST with the real server's consistency: the first
 * page is read at the current resourceVersion and every continued page at
 * that same resourceVersion (reconstructed from the table's history), so a
 * paginated list is one snapshot. A token older than the history window
 * gets 410 Expired carrying a token that continues at the latest state.
 */
export function listPage(table: ResourceTable, req: ListRequest, currentRv: number): ListPage {
  let readRv = currentRv;
  let after: string | undefined;
  const rvParam = req.resourceVersion ?? '';
  const match = req.resourceVersionMatch ?? '';
  if (match !== '' && match !== 'Exact' && match !== 'NotOlderThan') {
    throw badRequest(`resourceVersionMatch: Unsupported value: "${match}": supported values: "Exact", "NotOlderThan"`);
  }
  if (req.continueToken !== undefined && req.continueToken !== '') {
    if (rvParam !== '' && rvParam !== '0') throw badRequest('specifying resource version is not allowed when using continue');
    const token = decodeContinue(req.continueToken);
    after = token.after;
    if (token.rv !== -1) {
      if (token.rv < table.oldestResumable()) throw expired(TOO_OLD_CONTINUE, encodeContinue(-1, token.after));
      readRv = token.rv;
    }
  } else if (rvParam !== '') {
    const rv = parseRv(rvParam);
    if (match === 'Exact' && rv === 0)
      throw badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
    if (rv > currentRv) throw tooLargeResourceVersion(rv, currentRv);
    if (match === 'Exact') {
      if (rv < table.oldestResumable()) throw expired(TOO_OLD_RV);
      readRv = rv;
    }
  } else if (match !== '') {
    throw badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
  }
  const overrides = readRv === currentRv ? undefined : snapshotOverrides(table, readRv);
  return readPage(table, req, readRv, after, overrides);
}

function readPage(
  table: ResourceTable,
  req: ListRequest,
  readRv: number,
  after: string | undefined,
  overrides: Map<string, KubeObject | null> | undefined,
): ListPage {
  const keys = table.sortedKeys();
  const [lo, hi] = table.namespaceRange(req.namespace);
  const inRange = (k: string): boolean => req.namespace === undefined || !table.def.namespaced || k.startsWith(`${req.namespace}/`);
  let i = after === undefined ? lo : Math.max(lo, table.indexAfter(after));
  // Keys that existed at readRv but are gone now, merged into the walk in key order.
  const gone =
    overrides === undefined
      ? []
      : [...overrides]
          .filter(([k, v]) => v !== null && !table.has(k) && inRange(k) && (after === undefined || k > after))
          .map(([k]) => k)
          .sort();
  let j = 0;
  const limit = req.limit !== undefined && req.limit > 0 ? req.limit : Infinity;
  const items: KubeObject[] = [];
  let lastKey: string | undefined;
  while (items.length < limit && (i < hi || j < gone.length)) {
    const useCurrent = i < hi && (j >= gone.length || (keys[i] as string) < (gone[j] as string));
    const key = useCurrent ? (keys[i++] as string) : (gone[j++] as string);
    lastKey = key;
    const obj = overrides?.has(key) === true ? overrides.get(key) : table.get(key);
    if (obj !== null && obj !== undefined && req.filter.matches(obj)) items.push(obj);
  }
  const page: ListPage = { items, resourceVersion: String(readRv) };
  if (limit === Infinity || lastKey === undefined) return page;
  // Remaining = keys after lastKey that exist in the snapshot.
  let remaining = hi - i + (gone.length - j);
  if (overrides !== undefined) {
    for (const [k, v] of overrides) {
      if (v === null && k > lastKey && inRange(k) && table.has(k)) remaining--;
    }
  }
  if (remaining > 0) {
    page.continue = encodeContinue(readRv, lastKey);
    // The real server omits the count when selectors make it unknowable.
    if (req.filter.isEmpty()) page.remainingItemCount = remaining;
  }
  return page;
}
