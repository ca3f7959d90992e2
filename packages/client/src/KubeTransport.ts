// The transport contract lives in @protean/transport (shared with the connection pool); re-exported here so imports from @protean/client keep working.
export type { KubeHttpRequest, KubeHttpResponse, KubeTransport } from '@protean/transport';
