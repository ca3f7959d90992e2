import { notAcceptable } from './statusErrors.js';

/** How a response carries objects: whole, or reduced to `PartialObjectMetadata`. */
export type Representation = 'full' | 'partial';

/**
 * Picks the representation from an `Accept` header, taking the first
 * alternative the server can produce, as the real server does:
 * `application/json` (or a wildcard) gives full objects;
 * `;as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1` gives metadata only
 * (`List` for LIST requests, the singular for GET and WATCH). Throws 406
 * when nothing fits (e.g. only protobuf or `as=Table`).
 */
export function negotiate(accept: string | undefined, target: 'object' | 'list'): Representation {
  if (accept === undefined || accept.trim() === '') return 'full';
  const wanted = target === 'list' ? 'PartialObjectMetadataList' : 'PartialObjectMetadata';
  for (const alternative of accept.split(',')) {
    const [type = '', ...rawParams] = alternative.split(';').map((s) => s.trim());
    const mediaType = type.toLowerCase();
    if (mediaType !== 'application/json' && mediaType !== '*/*' && mediaType !== 'application/*') continue;
    const params = new Map<string, string>();
    for (const p of rawParams) {
      const eq = p.indexOf('=');
      if (eq > 0) params.set(p.slice(0, eq).trim().toLowerCase(), p.slice(eq + 1).trim());
    }
    const as = params.get('as');
    if (as === undefined) return 'full';
    const version = params.get('v');
    if (as === wanted && params.get('g') === 'meta.k8s.io' && (version === 'v1' || version === 'v1beta1')) return 'partial';
  }
  throw notAcceptable();
}
