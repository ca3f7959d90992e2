import { StaleReadError, type CachedObject, type KubeApiError, type Logger } from '@protean/core';
import { noteUnfencedWrite, readVersionOf } from '@protean/core/internal';
import { PATCH_TYPES, type Call } from './clientCall.js';
import type { KubeObject } from './KubeObject.js';

/** Frames of this package, passed over when naming where an unfenced write was made. */
const CLIENT_FRAMES = /[\\/](?:@protean[\\/]client|packages[\\/]client)[\\/](?:src|dist)[\\/](?![^:]*\.test\.)/;

/** A write sent with the resourceVersion its pass read of the object as a precondition. */
export interface FencedCall {
  readonly call: Call;
  /** The resourceVersion the pass read. */
  readonly version: string;
}

/**
 * The write with the resourceVersion its pass read of the object as a
 * precondition (see `WriteOptions.precondition`); undefined when none
 * applies: not an update, merge patch or apply, no pass signal, the pass
 * did not read the object, or the body names a version of its own.
 */
export function withPrecondition(call: Call): FencedCall | undefined {
  if (call.precondition === false || call.signal === undefined || call.name === undefined) return undefined;
  if (call.method !== 'PUT' && !(call.method === 'PATCH' && call.contentType !== PATCH_TYPES.json)) return undefined;
  const body = call.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const meta = (body as KubeObject).metadata;
  if (meta?.resourceVersion !== undefined && meta.resourceVersion !== '') return undefined;
  const version = readVersionOf(call.signal, call.gvr, call.namespace ?? '', call.name);
  if (version === undefined) return undefined;
  return { call: { ...call, body: { ...body, metadata: { ...meta, resourceVersion: version } } }, version };
}

/**
 * Counts a write made while this process acts under a lease without a
 * fenced pass's signal (core's `noteUnfencedWrite`), and tells of it once
 * per call site outside production, on the logger `logger()` gives.
 * Call it before the write's first await: the stack still names the
 * handler that made it.
 */
export function noteUnfenced(call: Call, logger: () => Logger): void {
  const unfenced = noteUnfencedWrite(call.signal, CLIENT_FRAMES);
  if (unfenced === undefined || !unfenced.first || process.env['NODE_ENV'] === 'production') return;
  logger().warn(
    { site: unfenced.site, leases: unfenced.leases, method: call.method, gvr: call.gvr, name: call.name },
    `a write sent without a pass's ctx.signal while this process acts under a lease (${unfenced.leases}): it is not refused ` +
      "once the lease has ended. Pass { signal: ctx.signal }, or call assertStillValid(ctx, 'what') before a write of your own client; " +
      `at ${unfenced.site}`,
  );
}

/**
 * A fenced write was refused (`err`, a 409): the object changed after the
 * pass read it. Its current version (`current`, read again unless the
 * pass's signal aborted) is handed to `noteWritten`, so the pass that runs
 * next reads at least that version (from the cache once it caught up, else
 * from the server); the refusal is then a {@link StaleReadError}.
 */
export async function staleRead(
  fenced: FencedCall,
  action: string,
  err: KubeApiError,
  current: () => Promise<CachedObject | undefined>,
  noteWritten: (object: CachedObject) => void,
): Promise<StaleReadError> {
  const { call, version } = fenced;
  if (call.signal?.aborted !== true) {
    const now = await current().catch(() => undefined);
    if (now !== undefined) noteWritten(now);
  }
  return new StaleReadError(action, call.gvr, call.namespace ?? '', call.name!, version, err);
}
