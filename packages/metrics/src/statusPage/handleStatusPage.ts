import { errorMessage } from '@protean/core';
import type { ServerResponse } from 'node:http';
import { roundDurations } from '../roundDurations.js';
import { ExplainQueryError } from './ExplainQueryError.js';
import { parseExplainQuery } from './parseExplainQuery.js';
import { JSON_CONTENT_SECURITY_POLICY, statusPageDocument } from './statusPageDocument.js';
import type { StatusPageSource } from './StatusPageSource.js';

/** The paths {@link handleStatusPage} answers. */
export const STATUS_PAGE_PATHS: readonly string[] = Object.freeze(['/statusz', '/statusz/', '/statusz/status.json', '/statusz/explain']);

/**
 * Answers the status page's paths: `/statusz` (the HTML page),
 * `/statusz/status.json` (durations rounded, see `roundDurations`) and
 * `/statusz/explain?gvr=&namespace=&name=&labels=`.
 * Returns false for any other path. Every answer carries a
 * Content-Security-Policy, `nosniff`, `no-referrer` and `no-store`.
 */
export function handleStatusPage(path: string, query: URLSearchParams, res: ServerResponse, source: StatusPageSource): boolean {
  if (path === '/statusz' || path === '/statusz/') {
    const page = statusPageDocument();
    send(res, 200, page.html, 'text/html; charset=utf-8', page.contentSecurityPolicy);
    return true;
  }
  if (path === '/statusz/status.json') {
    sendJson(res, 200, roundDurations(source.status()));
    return true;
  }
  if (path === '/statusz/explain') {
    let answer: unknown;
    try {
      answer = source.explain(parseExplainQuery(query));
    } catch (err) {
      sendJson(res, explainErrorStatus(err), { error: errorMessage(err) });
      return true;
    }
    sendJson(res, 200, answer);
    return true;
  }
  return false;
}

/**
 * 400 for a bad query or target, 404 for an object whose labels are to be
 * read from a cache that lacks it, 501 when routing cannot be explained.
 * Matched by name, not class, so a second copy of `@protean/core` still maps.
 */
function explainErrorStatus(err: unknown): number {
  if (err instanceof ExplainQueryError || err instanceof TypeError) return 400;
  const { name, reason } = (err ?? {}) as { name?: unknown; reason?: unknown };
  if (name === 'ExplainError') return reason === 'unsupported' ? 501 : 404;
  if (name === 'InvalidGroupVersionResourceError' || name === 'InvalidObjectNameError') return 400;
  return 500;
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, `${JSON.stringify(value, null, 2)}\n`, 'application/json; charset=utf-8', JSON_CONTENT_SECURITY_POLICY);
}

function send(res: ServerResponse, status: number, body: string, contentType: string, policy: string): void {
  res.writeHead(status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(body),
    'Content-Security-Policy': policy,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cache-Control': 'no-store',
  });
  res.end(body);
}
