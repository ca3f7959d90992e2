import type { KubeConfig } from '@kubernetes/client-node';
import { errorMessage, silentLogger, type Logger } from '@protean/core';
import { fnv1a64 } from './fnv1a64.js';
import { inRanges, shardSelector, type HashRange } from './HashRange.js';
import { kubeGetJson } from './kubeGetJson.js';

/** Where a shard's objects are filtered: by the API server (`shardSelector`), or on the client. */
export type ShardFilterMode = 'server' | 'client';

/** The outcome of {@link detectShardSelectorSupport}. */
export interface ShardSelectorSupport {
  readonly mode: ShardFilterMode;
  /** Why: what the probe saw. */
  readonly reason: string;
}

/** A range that holds (almost surely) no uid: `[0, 1)`. */
const PROBE_RANGES: readonly HashRange[] = [{ start: 0n, end: 1n }];

/**
 * Asks the API server whether it honours `shardSelector`: one LIST of
 * Namespaces (which always exist) with a selector on `object.metadata.uid`
 * that excludes practically everything. A server with the
 * `ShardedListAndWatch` gate returns only in-range objects (none); a
 * server without it ignores the parameter and returns namespaces out of
 * range, and so does a server that refuses it (4xx). Logs the mode.
 *
 * Easy to get wrong: `'client'` is always safe (the client-side filter is
 * also correct over a filtering server); `'server'` only saves memory and
 * bandwidth, so a failed probe (an error, no list) answers `'client'`.
 */
export async function detectShardSelectorSupport(
  kubeConfig: KubeConfig,
  options: { readonly logger?: Logger; readonly signal?: AbortSignal } = {},
): Promise<ShardSelectorSupport> {
  const log = (options.logger ?? silentLogger()).child({ component: 'sharding' });
  const q = new URLSearchParams({ limit: '500', shardSelector: shardSelector('uid', PROBE_RANGES) });
  let result: ShardSelectorSupport;
  try {
    const answer = await kubeGetJson(kubeConfig, `/api/v1/namespaces?${q.toString()}`, options.signal ?? new AbortController().signal);
    result = judge(answer.status, answer.body);
  } catch (err) {
    result = { mode: 'client', reason: `the probe LIST failed: ${errorMessage(err)}` };
  }
  log.info(
    { mode: result.mode, reason: result.reason },
    result.mode === 'server'
      ? 'the API server honours shardSelector: each shard lists and watches only its ranges'
      : 'the API server does not honour shardSelector: each shard filters on the client',
  );
  return result;
}

function judge(status: number, body: unknown): ShardSelectorSupport {
  if (status !== 200) return { mode: 'client', reason: `the probe LIST answered ${status}` };
  const items = (body as { items?: { metadata?: { uid?: string } }[] } | undefined)?.items;
  if (!Array.isArray(items)) return { mode: 'client', reason: 'the probe LIST answered no item list' };
  const outside = items.filter((i) => !inRanges(fnv1a64(i.metadata?.uid ?? ''), PROBE_RANGES)).length;
  if (outside > 0) return { mode: 'client', reason: `the probe LIST returned ${outside} namespaces outside the selector's range` };
  return { mode: 'server', reason: `the probe LIST returned only in-range namespaces (${items.length})` };
}
