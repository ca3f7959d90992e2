import { gvrKey, tracing, type GroupVersionResource } from '@protean/core';
import { type TraceAttributes } from '@protean/core/internal';

/** What a list/watch closes its request with when it is stopped: the end of a request, not its failure. */
export class InformerStoppedError extends Error {
  override readonly name = 'InformerStoppedError';
  constructor() {
    super('informer stopped');
  }
}

/** The span names of an informer's requests: a LIST (with its pages) and a watch, from its request to its end. */
export type InformerSpanKind = 'list' | 'watch';

/**
 * Runs one list or one watch of an informer in a span of its own
 * (`protean.informer.list`, `protean.informer.watch`), while tracing is on:
 * one span per request, never per event. A failure marks the span an error;
 * a request ended by stopping the informer (an {@link InformerStoppedError})
 * does not, it ends with `protean.informer.stopped`.
 */
export async function inInformerSpan<T>(
  kind: InformerSpanKind,
  gvr: GroupVersionResource,
  attributes: TraceAttributes,
  run: () => Promise<T>,
): Promise<T> {
  if (!tracing.refresh()) return run();
  const span = tracing.startSpan(`protean.informer.${kind}`, {
    parent: 'root',
    attributes: { 'protean.informer.gvr': gvrKey(gvr), ...attributes },
  });
  try {
    return await run();
  } catch (err) {
    if (err instanceof InformerStoppedError) span?.setAttribute('protean.informer.stopped', true);
    else tracing.fail(span, err);
    throw err;
  } finally {
    span?.end();
  }
}
