import { KubeApiError } from '@protean/core';
import { type RequestDescription } from '@protean/core/internal';
import { ApplyConflictError } from './ApplyConflictError.js';
import { keepWarnings } from './apiWarnings.js';
import type { KubeHttpResponse } from './KubeTransport.js';

/**
 * What the API server answered to `description`: the parsed body of a 2xx
 * answer (`{}` for an empty one), kept with its `warnings` (see
 * `warningsOf`); any other status throws core's {@link KubeApiError}, or
 * an {@link ApplyConflictError} for a server-side apply (as
 * `fieldManager`) refused over fields other managers own, also kept with
 * its warnings.
 */
export function answerOf<T>(
  res: KubeHttpResponse,
  description: RequestDescription,
  fieldManager: string | undefined,
  warnings: readonly string[],
): T {
  if (res.status >= 200 && res.status < 300) {
    const answer = (res.body.trim() === '' ? {} : JSON.parse(res.body)) as T;
    keepWarnings(answer, warnings);
    return answer;
  }
  const error = KubeApiError.fromResponse(description, res);
  const refused = ApplyConflictError.isApplyConflict(res.status, error.body)
    ? new ApplyConflictError(description, error.body, fieldManager ?? '')
    : error;
  keepWarnings(refused, warnings);
  throw refused;
}
