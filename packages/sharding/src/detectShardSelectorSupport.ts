import type { KubeConfigLike } from '@protean/transport';
import { errorMessage, KubeApiError, silentLogger, type Logger } from '@protean/core';
import { fnv1a64 } from './fnv1a64.js';
import { inRanges, shardSelector, type HashRange } from './HashRange.js';
import { kubeGetJson, type JsonAnswer } from './kubeGetJson.js';

/** Where a shard's objects are filtered: by the API server (`shardSelector`), or on the client. */
export type ShardFilterMode = 'server' | 'client';

/** The outcome of {@link detectShardSelectorSupport}. */
export interface ShardSelectorSupport {
  readonly mode: ShardFilterMode;
  /**
   * False when the probe could not tell (it failed, or the server holds no
   * Namespace at all, so an empty answer proves nothing): `mode` is then
   * `'client'`, the safe choice.
   */
  readonly conclusive: boolean;
  /** Why: what the probe saw. */
  readonly reason: string;
}

/** A range that holds (almost surely) no uid: `[0, 1)`. */
const PROBE_RANGES: readonly HashRange[] = [{ start: 0n, end: 1n }];

/**
 * Asks the API server whether it honours `shardSelector`: one LIST of
 * Namespaces with a selector on `object.metadata.uid` that excludes
 * practically everything. A server without the `ShardedListAndWatch` gate
 * ignores the parameter and returns namespaces out of range (`'client'`);
 * a server that refuses it (4xx) answers `'client'` too. An answer with
 * no namespace outside the range is checked by a second LIST without the
 * selector (`limit=1`): if that one returns a namespace, the server
 * filtered (`'server'`); if the server holds no namespace at all, the
 * probe proves nothing and answers `'client'` with `conclusive: false`.
 * Logs the mode and whether the probe was conclusive.
 *
 * Easy to get wrong: `'client'` is always safe (the client-side filter is
 * also correct over a filtering server); `'server'` only saves memory and
 * bandwidth, so a probe that fails or sees nothing answers `'client'`.
 */
export async function detectShardSelectorSupport(
  kubeConfig: KubeConfigLike,
  options: { readonly logger?: Logger; readonly signal?: AbortSignal } = {},
): Promise<ShardSelectorSupport> {
  const log = (options.logger ?? silentLogger()).child({ component: 'sharding' });
  const q = new URLSearchParams({ limit: '500', shardSelector: shardSelector('uid', PROBE_RANGES) });
  const signal = options.signal ?? new AbortController().signal;
  let result: ShardSelectorSupport;
  try {
    const answer = await listNamespaces(kubeConfig, `/api/v1/namespaces?${q.toString()}`, signal);
    result = answer instanceof KubeApiError ? refused(answer.status) : judge(answer.status, answer.body);
    if (result.mode === 'server') {
      // Nothing out of range came back: proof only if the server has namespaces to leave out.
      const all = await listNamespaces(kubeConfig, '/api/v1/namespaces?limit=1', signal);
      const seen = all instanceof KubeApiError ? undefined : itemsOf(all.body);
      if (all.status !== 200 || seen === undefined) {
        result = { mode: 'client', conclusive: false, reason: `the check LIST without the selector answered ${all.status}` };
      } else if (seen.length === 0) {
        result = {
          mode: 'client',
          conclusive: false,
          reason: 'the server holds no namespace, so the probe LIST proves nothing; filtering on the client',
        };
      }
    }
  } catch (err) {
    result = { mode: 'client', conclusive: false, reason: `the probe LIST failed: ${errorMessage(err)}` };
  }
  log.info(
    { mode: result.mode, conclusive: result.conclusive, reason: result.reason },
    result.mode === 'server'
      ? 'the API server honours shardSelector: each shard lists and watches only its ranges'
      : result.conclusive
        ? 'the API server does not honour shardSelector: each shard filters on the client'
        : 'could not tell whether the API server honours shardSelector: each shard filters on the client',
  );
  return result;
}

/**
 * A LIST of Namespaces: its answer, or the `KubeApiError` of the error
 * status the server answered (which says something about the selector);
 * rejects only when no answer came.
 */
async function listNamespaces(kubeConfig: KubeConfigLike, path: string, signal: AbortSignal): Promise<JsonAnswer | KubeApiError> {
  try {
    return await kubeGetJson(kubeConfig, path, signal, (res) =>
      KubeApiError.fromResponse({ method: 'LIST', path, target: 'namespaces' }, res),
    );
  } catch (err) {
    if (err instanceof KubeApiError && err.status !== undefined) return err;
    throw err;
  }
}

function itemsOf(body: unknown): { metadata?: { uid?: string } }[] | undefined {
  const items = (body as { items?: unknown } | undefined)?.items;
  return Array.isArray(items) ? (items as { metadata?: { uid?: string } }[]) : undefined;
}

/** The probe LIST answered an error status: 400/422, the server refuses the parameter (it does not serve it); anything else (403, 5xx) says nothing about it. */
function refused(status: number | undefined): ShardSelectorSupport {
  return { mode: 'client', conclusive: status === 400 || status === 422, reason: `the probe LIST answered ${status}` };
}

function judge(status: number, body: unknown): ShardSelectorSupport {
  if (status !== 200) return refused(status);
  const items = itemsOf(body);
  if (items === undefined) return { mode: 'client', conclusive: false, reason: 'the probe LIST answered no item list' };
  const outside = items.filter((i) => !inRanges(fnv1a64(i.metadata?.uid ?? ''), PROBE_RANGES)).length;
  if (outside > 0) {
    return { mode: 'client', conclusive: true, reason: `the probe LIST returned ${outside} namespaces outside the selector's range` };
  }
  return {
    mode: 'server',
    conclusive: true,
    reason: `the probe LIST returned only in-range namespaces (${items.length}) while the server holds namespaces`,
  };
}
