// The watch events of the ingest benchmark, shared by its stream server and
// its JSON.parse baseline so both see the very same bytes.
//
// The 'server' shape is what kube-apiserver v1.36.3 sends for a metadata-only
// watch (Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1)
// of a ConfigMap created with 3 labels, 2 annotations and one data key, captured
// from the real server: `kind`/`apiVersion` first, then metadata in Go's field
// order (name, namespace, uid, resourceVersion, creationTimestamp, labels and
// annotations sorted by key, managedFields), no generation (ConfigMaps have
// none), one managedFields entry written by the creating client. About 830
// bytes. The 'bare' shape is the same object without managedFields (about 450
// bytes): what a server that strips managedFields, or a transform, would send.

/** The event shapes: 'server' (as kube-apiserver sends them) and 'bare' (no managedFields). */
export const SHAPES = ['server', 'bare'];

const pad = (n, width) => String(n).padStart(width, '0');

/**
 * One metadata-only watch event of object `i % objects` at resourceVersion
 * `rv`, newline-terminated. Event `i` adds its object for `i < objects`, then
 * modifies it (a new revision annotation and managedFields time each round).
 */
export function watchEventLine(i, objects, rv, shape = 'server') {
  const n = i % objects;
  const round = 1 + Math.floor(i / objects);
  const time = `2026-11-30T10:${pad(15 + (round % 40), 2)}:00Z`;
  const metadata = {
    name: `config-${pad(n, 6)}`,
    namespace: `team-${n % 20}`,
    uid: `7d3b6f4e-0c1a-4c1a-9f2e-${pad(n, 12)}`,
    resourceVersion: String(rv),
    creationTimestamp: '2026-11-30T10:15:00Z',
    labels: { app: `app-${n % 50}`, 'app.kubernetes.io/managed-by': 'protean-bench', tier: n % 2 === 0 ? 'web' : 'api' },
    annotations: { 'protean.dev/checksum': 'sha256-3f0a9c2b7e', 'protean.dev/revision': String(round) },
  };
  if (shape === 'server') {
    metadata.managedFields = [
      {
        manager: 'kubernetes-client-javascript',
        operation: 'Update',
        apiVersion: 'v1',
        time,
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:data': { '.': {}, 'f:config.yaml': {} },
          'f:metadata': {
            'f:annotations': { '.': {}, 'f:protean.dev/checksum': {}, 'f:protean.dev/revision': {} },
            'f:labels': { '.': {}, 'f:app': {}, 'f:app.kubernetes.io/managed-by': {}, 'f:tier': {} },
          },
        },
      },
    ];
  } else if (shape !== 'bare') {
    throw new Error(`unknown event shape ${JSON.stringify(shape)}; expected one of ${SHAPES.join(', ')}`);
  }
  const object = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata };
  return `{"type":"${i < objects ? 'ADDED' : 'MODIFIED'}","object":${JSON.stringify(object)}}\n`;
}

/** `events` lines of `shape` over `objects` objects, resourceVersions 2, 3, ... */
export function watchEventLines(events, objects, shape = 'server') {
  const lines = [];
  for (let i = 0; i < events; i++) lines.push(watchEventLine(i, objects, 2 + i, shape));
  return lines;
}
