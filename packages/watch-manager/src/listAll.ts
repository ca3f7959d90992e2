import type { Logger, PartialObjectMetadata } from '@protean/core';
import { KubernetesRequestError } from './KubernetesRequestError.js';
import { trimMetadata } from './trimMetadata.js';

/** One page of a LIST response, as far as the informer reads it. */
export interface ListPage {
  readonly items?: unknown[];
  readonly metadata?: { readonly resourceVersion?: string; readonly continue?: string };
}

/** Where {@link listAll} puts the objects it reads. */
export interface ListTarget {
  /** A list (re)starts: drop what came before. */
  begin(): void;
  add(obj: PartialObjectMetadata): void;
}

/** The outcome of {@link listAll}. */
export interface ListResult {
  /** The list's resourceVersion: where the following watch starts. */
  readonly resourceVersion: string;
  readonly pages: number;
}

const MAX_RESTARTS = 3;

/**
 * Lists a collection page by page (`limit` + `continue`) into `target`,
 * as trimmed objects. The first page asks for `resourceVersion`
 * (`""` = most recent, `"0"` = any), later pages only for their
 * `continue` token, as the API requires. If a continue token expires
 * (410) mid-list, the list starts over from `""` (`target.begin()`
 * again), at most three times.
 * `limit` 0 asks for everything at once. `decode` turns each item into
 * what is cached (default: `trimMetadata`).
 */
export async function listAll(
  fetchPage: (query: URLSearchParams) => Promise<ListPage>,
  resourceVersion: string,
  limit: number,
  intern: (s: string) => string,
  log: Logger,
  target: ListTarget,
  decode: (raw: unknown) => PartialObjectMetadata | undefined = (raw) => trimMetadata(raw, intern),
): Promise<ListResult> {
  target.begin();
  let rv = resourceVersion;
  let cont: string | undefined;
  let pages = 0;
  let restarts = 0;
  for (;;) {
    const q = new URLSearchParams();
    if (limit > 0) q.set('limit', String(limit));
    if (cont !== undefined) q.set('continue', cont);
    else if (rv !== '') q.set('resourceVersion', rv);
    let page: ListPage;
    try {
      page = await fetchPage(q);
    } catch (err) {
      if (cont !== undefined && err instanceof KubernetesRequestError && err.expired && restarts++ < MAX_RESTARTS) {
        log.debug('continue token expired while paging; listing again from the most recent version');
        target.begin();
        cont = undefined;
        rv = '';
        pages = 0;
        continue;
      }
      throw err;
    }
    pages++;
    for (const item of Array.isArray(page.items) ? page.items : []) {
      const obj = decode(item);
      if (obj !== undefined) target.add(obj);
    }
    cont = page.metadata?.continue || undefined;
    if (cont === undefined) return { resourceVersion: page.metadata?.resourceVersion ?? '', pages };
  }
}
