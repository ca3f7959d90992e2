import type { Readable } from 'node:stream';

/** The wire protocol a response came over. */
export type KubeWireProtocol = 'h2' | 'http/1.1';

/**
 * The API server's answer to a streaming request, as soon as its status
 * and headers arrived; the body follows in `body`.
 *
 * Easy to get wrong: the body must be read to its end or destroyed (or
 * the request's signal aborted), else the stream (HTTP/2) or the socket
 * (HTTP/1.1) stays taken. A body that emits `'error'`, or `'close'`
 * before `'end'`, was cut off: the connection broke (a dead HTTP/2
 * session fails every stream on it this way), or the request was aborted.
 */
export interface KubeStreamResponse {
  readonly status: number;
  /** Header names in lower case; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The body as it arrives: read it with `for await`, `'data'` events or `pipe`. */
  readonly body: Readable;
  /** `'h2'` on a shared HTTP/2 session, `'http/1.1'` otherwise. */
  readonly protocol: KubeWireProtocol;
}
