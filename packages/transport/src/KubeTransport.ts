/** One HTTP request to the API server, as a {@link KubeTransport} sends it. */
export interface KubeHttpRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path and query (`/api/v1/namespaces/default/configmaps/a?fieldManager=x`), appended to the cluster URL. */
  readonly path: string;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Aborts the request; the transport then rejects with `signal.reason`. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Called synchronously right before the request is handed to a
   * connection (an HTTP/2 stream opened, an HTTP/1.1 request made), after
   * credentials and connecting; when it throws, nothing is sent and the
   * request rejects with what it threw. `@protean/client` checks a pass's
   * lease here, so a write delayed by a freeze on its way out is not sent.
   */
  readonly beforeSend?: (() => void) | undefined;
}

/** The API server's answer, whatever its status. */
export interface KubeHttpResponse {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: string;
}

/**
 * How a buffered request reaches the API server (`@protean/client`'s
 * `KubeClient` sends through one). {@link KubeConnectionPool} is one, over
 * the shared connection to the KubeConfig's cluster; tests can inject one
 * that answers from a script.
 *
 * Easy to get wrong: a transport resolves for every HTTP status (errors
 * are the client's business) and rejects only when no response arrived:
 * with `signal.reason` when aborted, else a `KubeTransportError`.
 */
export interface KubeTransport {
  send(request: KubeHttpRequest): Promise<KubeHttpResponse>;
}
