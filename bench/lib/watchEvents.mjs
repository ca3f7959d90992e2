// The watch events of the ingest benchmark, shared by its stream server and
// its JSON.parse baseline so both see the very same bytes.

/**
 * One metadata-only watch event of object `i % objects` at resourceVersion
 * `rv`, newline-terminated: about 460 bytes (the size the issue measured),
 * shaped like a PartialObjectMetadata ConfigMap with 3 labels and 2
 * annotations. Event `i` adds its object for `i < objects`, then modifies it.
 */
export function watchEventLine(i, objects, rv) {
  const n = i % objects;
  const round = 1 + Math.floor(i / objects);
  const object = {
    kind: 'PartialObjectMetadata',
    apiVersion: 'meta.k8s.io/v1',
    metadata: {
      name: `config-${String(n).padStart(6, '0')}`,
      namespace: `team-${n % 20}`,
      uid: `7d3b6f4e-0c1a-4c1a-9f2e-${String(n).padStart(12, '0')}`,
      resourceVersion: String(rv),
      generation: round,
      creationTimestamp: '2026-11-30T10:15:00Z',
      labels: { app: `app-${n % 50}`, tier: n % 2 === 0 ? 'web' : 'api', 'app.kubernetes.io/managed-by': 'protean-bench' },
      annotations: { 'protean.dev/revision': String(round), 'protean.dev/checksum': 'sha256-3f0a9c2b7e' },
    },
  };
  return `{"type":"${i < objects ? 'ADDED' : 'MODIFIED'}","object":${JSON.stringify(object)}}\n`;
}

/** `events` lines over `objects` objects, resourceVersions 2, 3, ... */
export function watchEventLines(events, objects) {
  const lines = [];
  for (let i = 0; i < events; i++) lines.push(watchEventLine(i, objects, 2 + i));
  return lines;
}
