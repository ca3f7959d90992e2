import {
  Observable,
  PatchStrategy,
  setHeaderOptions,
  type ConfigurationOptions,
  type ObservableMiddleware,
  type RequestContext,
  type ResponseContext,
} from '@kubernetes/client-node';

/** Per-call options of a client-node API method. */
export type RequestOptions = ConfigurationOptions<ObservableMiddleware>;

/** A middleware that attaches `signal` to the request, so aborting it cancels the HTTP call. */
function abortMiddleware(signal: AbortSignal): ObservableMiddleware {
  return {
    pre: (request: RequestContext) => {
      request.setSignal(signal);
      return new Observable(Promise.resolve(request));
    },
    post: (response: ResponseContext) => new Observable(Promise.resolve(response)),
  };
}

/**
 * Options for one client-node call: cancelled by `signal` and, for a
 * patch, sent as a JSON merge patch.
 *
 * Easy to get wrong: client-node 1.4 sends every patch as
 * `application/json-patch+json` unless a middleware overrides the
 * `Content-Type`, and call-time middleware *replaces* the client's unless
 * the merge strategy says `append`.
 */
export function requestOptions(signal: AbortSignal, patch?: 'merge'): RequestOptions {
  const base: RequestOptions = { middleware: [abortMiddleware(signal)], middlewareMergeStrategy: 'append' };
  return patch === 'merge' ? setHeaderOptions('Content-Type', PatchStrategy.MergePatch, base) : base;
}
