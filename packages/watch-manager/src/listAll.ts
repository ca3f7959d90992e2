import type { Logger, PartialObjectMetadata } from '@protean/core';
import type { DecodedListPage } from './decodeListPage.js';
import { KubernetesRequestError } from './KubernetesRequestError.js';

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
 * Lists a collection page by page (`limit` + `continue`) into `target`;
 * `fetchPage` gives each page's items already trimmed. The first page asks for `resourceVersion`
 * (`""` = most recent, `"0"` = any), later pages only for their
 * `continue` token, as the API requires. If a continue token expires
 * (410) mid-list, the list starts over from `""` (`target.begin()`
 * again), at most three times.
 * `limit` 0 asks for everything at once.
 */
export async function listAll(
  fetchPage: (query: URLSearchParams) => Promise<DecodedListPage>,
  resourceVersion: string,
  limit: number,
  log: Logger,
  target: ListTarget,
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
    let page: DecodedListPage;
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
    for (const obj of page.items) target.add(obj);
    cont = page.metadata?.continue || undefined;
    if (cont === undefined) return { resourceVersion: page.metadata?.resourceVersion ?? '', pages };
  }
}
