import type { GroupVersionResource, PartialObjectMetadata } from '@protean/core';
import { KubernetesRequestError, type KubeStatus } from './KubernetesRequestError.js';
import { fastParseWatchLine } from './fastParseWatchLine.js';
import { trimMetadata } from './trimMetadata.js';
import type { Interner } from './StringInterner.js';

/** The annotation of the bookmark that ends a streaming list's initial events. */
export const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

/** One line of a watch stream, as the informer applies it. */
export type DecodedWatchLine =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: PartialObjectMetadata }
  /** `resourceVersion`: the bookmark's, when it is a non-empty string. */
  | { readonly type: 'BOOKMARK'; readonly resourceVersion: string | undefined; readonly initialEventsEnd: boolean }
  /** `status`: the event's object as sent, normally a `Status`. */
  | { readonly type: 'ERROR'; readonly status: KubeStatus | undefined };

/**
 * Decodes one line of a watch stream (`text` from `start` to `end`): an object event's trimmed metadata
 * (see `trimMetadata`), a bookmark's resourceVersion and whether it ends a
 * streaming list's initial events, or an ERROR event's Status. The fast
 * path (`fastParseWatchLine`) parses only the metadata of the lines
 * kube-apiserver writes for a metadata-only watch, without `managedFields`;
 * whenever it is unsure, the whole line is parsed
 * ({@link decodeWatchLineByParse}), so the result is always the one of that
 * plain parse.
 *
 * Throws a {@link KubernetesRequestError} with reason `InvalidResponse` for
 * a line that is not JSON, not a JSON object, of an unknown type, or an
 * object event without `metadata.name`. `intern` de-duplicates namespaces and creation timestamps.
 * With `decodeObject` (a list/watch of full objects) every line is parsed
 * whole and its object decoded by it instead of trimmed to metadata.
 */
export function decodeWatchLine(
  text: string,
  start: number,
  end: number,
  gvr: GroupVersionResource,
  intern: Interner,
  decodeObject?: ObjectDecoder,
): DecodedWatchLine {
  // Full objects: the fast path would drop all but the metadata.
  if (decodeObject !== undefined) return decodeWatchLineByParse(text.slice(start, end), gvr, intern, decodeObject);
  const fast = fastParseWatchLine(text, start, end);
  if (fast === undefined) return decodeWatchLineByParse(text.slice(start, end), gvr, intern);
  return interpret(fast.type, { metadata: fast.metadata }, gvr, intern);
}

/** Turns an event's object into what the informer caches (`undefined`: not an object with `metadata.name`). */
export type ObjectDecoder = (raw: unknown) => PartialObjectMetadata | undefined;

/**
 * {@link decodeWatchLine} by `JSON.parse` of the whole line: the reference
 * the fast path is held to, and its fallback.
 */
export function decodeWatchLineByParse(
  line: string,
  gvr: GroupVersionResource,
  intern: Interner,
  decodeObject?: ObjectDecoder,
): DecodedWatchLine {
  let ev: unknown;
  try {
    ev = JSON.parse(line);
  } catch (err) {
    throw new KubernetesRequestError(gvr, 'WATCH', `unparseable watch event: ${line.slice(0, 100)}`, {
      reason: 'InvalidResponse',
      cause: err,
    });
  }
  if (ev === null || typeof ev !== 'object' || Array.isArray(ev)) {
    throw new KubernetesRequestError(gvr, 'WATCH', `malformed watch event (not a JSON object): ${line.slice(0, 100)}`, {
      reason: 'InvalidResponse',
    });
  }
  const { type, object } = ev as { type?: unknown; object?: unknown };
  return interpret(type, object, gvr, intern, decodeObject);
}

function interpret(
  type: unknown,
  object: unknown,
  gvr: GroupVersionResource,
  intern: Interner,
  decodeObject?: ObjectDecoder,
): DecodedWatchLine {
  if (type === 'BOOKMARK') {
    const meta = field(object, 'metadata');
    const rv = field(meta, 'resourceVersion');
    return {
      type,
      resourceVersion: typeof rv === 'string' && rv !== '' ? rv : undefined,
      initialEventsEnd: field(field(meta, 'annotations'), INITIAL_EVENTS_END) === 'true',
    };
  }
  if (type === 'ERROR') return { type, status: object as KubeStatus | undefined };
  const obj = decodeObject === undefined ? trimMetadata(object, intern) : decodeObject(object);
  if (obj === undefined || (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED')) {
    throw new KubernetesRequestError(gvr, 'WATCH', `malformed watch event of type ${String(type)}`, { reason: 'InvalidResponse' });
  }
  return { type, object: obj };
}

/** `value[key]` for an object, else undefined (what optional chaining gives for the values JSON can hold). */
function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
}
