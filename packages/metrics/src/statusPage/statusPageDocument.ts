import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The status page and the Content-Security-Policy that lets exactly its own style and script run. */
export interface StatusPageDocument {
  readonly html: string;
  readonly contentSecurityPolicy: string;
}

/**
 * `assets/statusPage.html` of the installed `@protean/metrics`, found by the
 * package's name rather than by this module's path: an application bundled
 * into one file (the generated project's build) runs this code from its own
 * `dist/main.js`, where a path relative to the module would point nowhere,
 * while the package itself is still in `node_modules` beside it. From this
 * package's own `src/` or `dist/`, the name resolves to the package itself.
 */
function assetPath(): string {
  const manifest = createRequire(import.meta.url).resolve('@protean/metrics/package.json');
  return join(dirname(manifest), 'assets', 'statusPage.html');
}

let cached: StatusPageDocument | undefined;

/**
 * The page with its policy: `default-src 'none'`, the inline `<style>` and
 * `<script>` allowed by their SHA-256 (no `'unsafe-inline'`), requests to
 * its own origin only (`connect-src 'self'`), no framing, no form posts
 * elsewhere, no base URL changes.
 */
export function statusPageDocument(): StatusPageDocument {
  if (cached !== undefined) return cached;
  const file = assetPath();
  const html = readFileSync(file, 'utf8');
  const style = only(file, html, /<style>([\s\S]*?)<\/style>/g, 'style');
  const script = only(file, html, /<script>([\s\S]*?)<\/script>/g, 'script');
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

function only(file: string, html: string, pattern: RegExp, what: string): string {
  const found = [...html.matchAll(pattern)];
  if (found.length !== 1) throw new Error(`${file}: expected exactly one <${what}> element, found ${found.length}`);
  return found[0]?.[1] ?? '';
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64');
}
