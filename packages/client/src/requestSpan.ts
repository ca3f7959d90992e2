import { tracing, type GroupVersionResource } from '@protean/core';
import { type TraceSpan, type RequestDescription } from '@protean/core/internal';

/**
 * The span of one client request (all its attempts), while tracing is on: a
 * child of the pass whose `ctx.signal` the request was given (else of the
 * active span), named `APPLY configmaps`, `GET widgets.example.com`, ...
 * Its W3C `traceparent` goes into `headers`, so the API server's spans for
 * the request join the trace.
 */
export function startRequestSpan(
  description: RequestDescription,
  gvr: GroupVersionResource,
  signal: AbortSignal | undefined,
  headers: Record<string, string>,
): TraceSpan | undefined {
  if (!tracing.refresh()) return undefined;
  const resource = gvr.group === '' ? gvr.resource : `${gvr.resource}.${gvr.group}`;
  const span = tracing.startSpan(`${description.method} ${resource}`, {
    kind: 'client',
    parent: signal,
    attributes: {
      'http.request.method': description.method === 'APPLY' ? 'PATCH' : description.method,
      'url.path': description.path.split('?')[0],
      'protean.request.target': description.target,
      'protean.request.verb': description.method,
    },
  });
  tracing.inject(span, headers);
  return span;
}
