/** What the index at `/` lists: the endpoints a {@link MetricsServer} serves with its options. */
export interface EndpointIndexOptions {
  /** Names of the JSON pages `/statusz/<name>`. */
  readonly statusNames: readonly string[];
  /** The status page (`/statusz`, `/statusz/status.json`, `/statusz/explain`) is on. */
  readonly statusPage: boolean;
}

/** The Content-Security-Policy of the index: a static page that loads and runs nothing. */
export const ENDPOINT_INDEX_CSP = "default-src 'none'; frame-ancestors 'none'";

/**
 * The small HTML page `/` answers on the metrics port: one link per
 * endpoint, with what it is for. Easy to get wrong: status page names are
 * the caller's strings, so they are escaped and URL-encoded here.
 */
export function endpointIndex(options: EndpointIndexOptions): string {
  const entries: Array<[string, string]> = [
    ['/metrics', 'Prometheus metrics (text format)'],
    ['/healthz', 'liveness checks (503 when one fails; also /livez)'],
    ['/readyz', 'readiness checks (503 when one fails), each with its reason'],
  ];
  if (options.statusPage) {
    entries.push(['/statusz', 'the live status page (HTML)']);
    entries.push(['/statusz/status.json', 'what the status page shows, as JSON']);
    entries.push(['/statusz/explain', 'why an object is routed where it is (?gvr=&namespace=&name=)']);
  }
  for (const name of options.statusNames) entries.push([`/statusz/${encodeURIComponent(name)}`, `JSON status: ${name}`]);
  const items = entries.map(([path, what]) => `<li><a href="${escapeHtml(path)}">${escapeHtml(path)}</a> ${escapeHtml(what)}</li>`);
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><title>Protean controller endpoints</title></head>',
    '<body><h1>Protean controller endpoints</h1><ul>',
    ...items,
    '</ul></body></html>',
    '',
  ].join('\n');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
