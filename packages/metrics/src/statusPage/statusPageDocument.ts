import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The status page and the Content-Security-Policy that lets exactly its own style and script run. */
export interface StatusPageDocument {
  readonly html: string;
  readonly contentSecurityPolicy: string;
}

/**
 * `assets/statusPage.html`, read once. The path is relative to this module
 * and is the same from `src/statusPage/` (tests) and `dist/statusPage/`
 * (the published build): both sit two levels below the package root, where
 * `assets/` is.
 */
const ASSET = new URL('../../assets/statusPage.html', import.meta.url);

let cached: StatusPageDocument | undefined;

/**
 * The page with its policy: `default-src 'none'`, the inline `<style>` and
 * `<script>` allowed by their SHA-256 (no `'unsafe-inline'`), requests to
 * its own origin only (`connect-src 'self'`), no framing, no form posts
 * elsewhere, no base URL changes.
 */
export function statusPageDocument(): StatusPageDocument {
  if (cached !== undefined) return cached;
  const html = readFileSync(ASSET, 'utf8');
  const style = only(html, /<style>([\s\S]*?)<\/style>/g, 'style');
  const script = only(html, /<script>([\s\S]*?)<\/script>/g, 'script');
  cached = {
    html,
    contentSecurityPolicy: [
      "default-src 'none'",
      `style-src 'sha256-${sha256(style)}'`,
      `script-src 'sha256-${sha256(script)}'`,
      "connect-src 'self'",
      "img-src 'self'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
  };
  return cached;
}

/** The policy of every other status page response (JSON): nothing may load or run. */
export const JSON_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

function only(html: string, pattern: RegExp, what: string): string {
  const found = [...html.matchAll(pattern)];
  if (found.length !== 1) throw new Error(`${ASSET.pathname}: expected exactly one <${what}> element, found ${found.length}`);
  return found[0]?.[1] ?? '';
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64');
}
