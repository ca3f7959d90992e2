import type { GroupVersionResource, PartialObjectMetadata } from '@protean/core';
import { KubernetesRequestError } from './KubernetesRequestError.js';
import type { ObjectDecoder } from './decodeWatchLine.js';
import { trimMetadata } from './trimMetadata.js';
import type { Interner } from './StringInterner.js';

/** The list's own `metadata`, as far as the informer reads it (as sent: the server writes strings). */
export interface ListPageMetadata {
  readonly resourceVersion?: string;
  readonly continue?: string;
}

/** One page of a LIST response, decoded: its items' trimmed metadata (see `trimMetadata`) and the list's `metadata`. */
export interface DecodedListPage {
  readonly items: readonly PartialObjectMetadata[];
  /** The last `metadata` member of the response, as parsed; `undefined` when there is none. */
  readonly metadata: ListPageMetadata | undefined;
}

/**
 * Decodes a whole LIST response body by `JSON.parse`: the reference the
 * streaming `ListPageDecoder` is held to, and its path for a body that is
 * not a JSON object. Items that are not objects with a `metadata.name` are
 * skipped, as is an `items` that is not an array.
 *
 * Throws a {@link KubernetesRequestError} with reason `InvalidResponse`
 * (message: the body's first 100 characters) for a body that is not JSON.
 * Easy to get wrong: a body of `null` throws the `TypeError` of reading
 * `items` of null, as the informer always has (the list is retried as a
 * network failure).
 */
export function decodeListPageByParse(
  text: string,
  gvr: GroupVersionResource,
  intern: Interner,
  decodeObject: ObjectDecoder = (raw) => trimMetadata(raw, intern),
): DecodedListPage {
  let page: { items?: unknown; metadata?: ListPageMetadata };
  try {
    page = JSON.parse(text) as typeof page;
  } catch (err) {
    throw notJson(gvr, text.slice(0, 100), err);
  }
  const items: PartialObjectMetadata[] = [];
  for (const item of Array.isArray(page.items) ? (page.items as unknown[]) : []) {
    const obj = decodeObject(item);
    if (obj !== undefined) items.push(obj);
  }
  return { items, metadata: page.metadata };
}

/** The error of a LIST response that is not JSON; `head`: its first 100 characters. */
export function notJson(gvr: GroupVersionResource, head: string, cause: unknown): KubernetesRequestError {
  return new KubernetesRequestError(gvr, 'LIST', `response is not JSON: ${head}`, { reason: 'InvalidResponse', cause });
}
