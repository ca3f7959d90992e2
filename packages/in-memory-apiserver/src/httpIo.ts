import { errorMessage } from '@protean/core';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { ApiError } from './ApiError.js';
import { JsonPatchError } from './jsonPatch.js';
import { badRequest, serverError, statusBody } from './statusErrors.js';

/** Writes a complete JSON response (`body` already serialised). */
export function sendJsonText(res: ServerResponse, code: number, body: string, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Audit-Id': randomUUID(),
    'Content-Length': String(Buffer.byteLength(body)),
    ...headers,
  });
  res.end(body);
}

/** Writes `value` as a JSON response. */
export function sendJson(res: ServerResponse, code: number, value: unknown, headers: Record<string, string> = {}): void {
  sendJsonText(res, code, JSON.stringify(value), headers);
}

/** Writes a plain-text response (health endpoints). */
export function sendText(res: ServerResponse, code: number, text: string): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(Buffer.byteLength(text)) });
  res.end(text);
}

/** Turns any thrown value into its Status response; unknown errors become a reason-less 500. */
export function sendError(res: ServerResponse, err: unknown): void {
  let apiError: ApiError;
  if (err instanceof ApiError) apiError = err;
  else if (err instanceof JsonPatchError) apiError = new ApiError(statusBody(422, 'Invalid', err.message));
  else apiError = serverError(errorMessage(err));
  if (res.headersSent) {
    // Too late for a status line: the best a stream can do is stop.
    res.destroy();
    return;
  }
  sendJson(res, apiError.code, apiError.body, { ...apiError.headers });
}

/** Reads the whole request body as text. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Parses a JSON request body; 400 with the real server's wording when malformed. */
export function parseJsonBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw badRequest(`couldn't get version/kind; json parse error: ${(err as Error).message}`);
  }
}

/**
 * Parses a server-side apply body: YAML (JSON included) with YAML 1.1's
 * scalars, as kube-apiserver's decoder reads it; 400 when it is not YAML.
 */
export function parseApplyBody(text: string): unknown {
  try {
    return parseYaml(text, { version: '1.1', prettyErrors: false });
  } catch (err) {
    throw badRequest(`error decoding YAML: ${(err as Error).message}`);
  }
}

/** The bearer token of a request, if any. */
export function bearerToken(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  if (h === undefined) return undefined;
  const m = /^Bearer\s+(.+)$/i.exec(h.trim());
  return m === null ? undefined : (m[1] as string).trim();
}

/** The managedFields manager of a request: `fieldManager`, else the User-Agent's product, as the real server does. */
export function managerOf(req: IncomingMessage, query: URLSearchParams): string {
  const explicit = query.get('fieldManager');
  if (explicit !== null && explicit !== '') return explicit;
  const ua = req.headers['user-agent'] ?? '';
  const product = ua.split('/')[0]?.trim() ?? '';
  return product === '' ? 'unknown' : product;
}
