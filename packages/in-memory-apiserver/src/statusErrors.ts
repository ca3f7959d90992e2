import { ApiError, type StatusDetails, type StatusObject } from './ApiError.js';

/** The `group/resource` a message names, as `GroupResource.String()` prints it. */
export interface QualifiedResource {
  group: string;
  resource: string;
}

function qualified(gr: QualifiedResource): string {
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

function grDetails(gr: QualifiedResource, name: string): StatusDetails {
  const d: StatusDetails = { name };
  if (gr.group !== '') d.group = gr.group;
  // The real server puts the plural resource into `kind` here.
  d.kind = gr.resource;
  return d;
}

/** Builds a `Status` body; `details` is kept as given (`{}` included, as the real server sends it). */
export function statusBody(code: number, reason: string, message: string, details?: StatusDetails): StatusObject {
  const body: StatusObject = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (details !== undefined) body.details = details;
  return body;
}

const REASON_BY_CODE: Record<number, [string, string]> = {
  400: ['BadRequest', 'the server rejected our request for an unknown reason'],
  401: ['Unauthorized', 'Unauthorized'],
  403: ['Forbidden', 'forbidden'],
  404: ['NotFound', 'the server could not find the requested resource'],
  405: ['MethodNotAllowed', 'the server does not allow this method on the requested resource'],
  406: ['NotAcceptable', 'the server was unable to respond with a content type that the client supports'],
  409: ['Conflict', 'the server reported a conflict'],
  410: ['Expired', 'the resource version is too old'],
  415: ['UnsupportedMediaType', 'the server was unable to handle the media type of the request'],
  422: ['Invalid', 'the server rejected our request due to an error in our request'],
  429: ['TooManyRequests', 'Too many requests, please try again later.'],
  500: ['InternalError', 'an error on the server ("") has prevented the request from succeeding'],
  503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
  504: ['Timeout', 'the server was unable to return a response in the time allotted, but may still be processing the request'],
};

/** A generic error for an HTTP code (reason and message as `NewGenericServerResponse` picks them). */
export function genericError(code: number, retryAfterSeconds?: number): ApiError {
  const [reason, message] = REASON_BY_CODE[code] ?? ['Unknown', `an error on the server with code ${code}`];
  const details: StatusDetails = {};
  const headers: Record<string, string> = {};
  if (retryAfterSeconds !== undefined) {
    details.retryAfterSeconds = retryAfterSeconds;
    headers['Retry-After'] = String(retryAfterSeconds);
  }
  return new ApiError(statusBody(code, reason, message, details), headers);
}

/** 404 for a path no resource serves (`details: {}` as the real server sends it). */
export function routeNotFound(): ApiError {
  return genericError(404);
}

/** 404 `configmaps "x" not found`. */
export function notFound(gr: QualifiedResource, name: string): ApiError {
  return new ApiError(statusBody(404, 'NotFound', `${qualified(gr)} "${name}" not found`, grDetails(gr, name)));
}

/** 409 `configmaps "x" already exists`. */
export function alreadyExists(gr: QualifiedResource, name: string): ApiError {
  return new ApiError(statusBody(409, 'AlreadyExists', `${qualified(gr)} "${name}" already exists`, grDetails(gr, name)));
}

/** 409 Conflict (stale resourceVersion or failed precondition). */
export function conflict(gr: QualifiedResource, name: string, why?: string): ApiError {
  const reasonText = why ?? 'the object has been modified; please apply your changes to the latest version and try again';
  return new ApiError(
    statusBody(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(gr)} "${name}": ${reasonText}`, grDetails(gr, name)),
  );
}

/** One failed field of a 422 Invalid. */
export interface FieldCause {
  field: string;
  /** `FieldValueRequired`, `FieldValueInvalid`, ... */
  reason: string;
  message: string;
}

/** 422 `ConfigMap "x" is invalid: field: message`; the message names a repeated cause once, as the real server's does. */
export function invalid(group: string, kind: string, name: string, causes: FieldCause[]): ApiError {
  const parts = [...new Set(causes.map((c) => `${c.field}: ${c.message}`))];
  const text = parts.join(', ');
  const list = parts.length > 1 ? `[${text}]` : text;
  const qualifiedKind = group === '' ? kind : `${kind}.${group}`;
  const details: StatusDetails = { name };
  if (group !== '') details.group = group;
  details.kind = kind;
  details.causes = causes.map((c) => ({ reason: c.reason, message: c.message, field: c.field }));
  return new ApiError(statusBody(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${list}`, details));
}

/** 422 for invalid PATCH options (`fieldManager` missing on apply, `force` on another patch), as the real server words it. */
export function patchOptionsInvalid(field: string, reason: string, message: string): ApiError {
  return new ApiError(
    statusBody(422, 'Invalid', `PatchOptions.meta.k8s.io "" is invalid: ${field}: ${message}`, {
      group: 'meta.k8s.io',
      kind: 'PatchOptions',
      causes: [{ reason, message, field }],
    }),
  );
}

/** 422 for invalid list or watch options, as the real server words it (`ListOptions.meta.k8s.io "" is invalid: ...`). */
export function listOptionsInvalid(causes: FieldCause[]): ApiError {
  const text = causes.map((c) => `${c.field}: ${c.message}`).join(', ');
  const list = causes.length > 1 ? `[${text}]` : text;
  return new ApiError(
    statusBody(422, 'Invalid', `ListOptions.meta.k8s.io "" is invalid: ${list}`, {
      group: 'meta.k8s.io',
      kind: 'ListOptions',
      causes: causes.map((c) => ({ reason: c.reason, message: c.message, field: c.field })),
    }),
  );
}

/** 400 BadRequest with the real server's message. */
export function badRequest(message: string): ApiError {
  return new ApiError(statusBody(400, 'BadRequest', message));
}

/** 410 Expired (too old resourceVersion / continue token). */
export function expired(message: string, continueToken?: string): ApiError {
  const body = statusBody(410, 'Expired', message);
  if (continueToken !== undefined) body.metadata.continue = continueToken;
  return new ApiError(body);
}

/** 500 InternalError with the real server's message wrapping. */
export function internalError(message: string): ApiError {
  return new ApiError(statusBody(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] }));
}

/** 500 for an error the real server does not classify (no reason, as `ErrorToAPIStatus` sends it). */
export function serverError(message: string): ApiError {
  return new ApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 });
}

/** 504 `Too large resource version` for a resourceVersion the server has not reached. */
export function tooLargeResourceVersion(requested: number, current: number): ApiError {
  return new ApiError(
    statusBody(504, 'Timeout', `Too large resource version: ${requested}, current: ${current}`, {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds: 1,
    }),
    { 'Retry-After': '1' },
  );
}

/** 405 MethodNotAllowed. */
export function methodNotAllowed(): ApiError {
  return genericError(405);
}

/** 401 Unauthorized (no details, as the authentication filter sends it). */
export function unauthorized(): ApiError {
  return new ApiError(statusBody(401, 'Unauthorized', 'Unauthorized'));
}

/** 415 for a PATCH content type the server does not handle. */
export function unsupportedPatchType(contentType: string): ApiError {
  return new ApiError(
    statusBody(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json (got ${JSON.stringify(contentType)})`,
    ),
  );
}

/** 406 when no Accept alternative can be served. */
export function notAcceptable(): ApiError {
  return new ApiError(
    statusBody(
      406,
      'NotAcceptable',
      'only the following media types are accepted: application/json, application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
    ),
  );
}
