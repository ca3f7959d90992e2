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
}

/** The API server's answer, whatever its status. */
export interface KubeHttpResponse {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: string;
}

/**
 * How a {@link KubeClient} reaches the API server. The default,
 * {@link KubeConfigTransport}, speaks HTTP(S) with a `KubeConfig`'s
 * credentials; tests can inject one that answers from a script.
 *
 * Easy to get wrong: a transport resolves for every HTTP status (errors
 * are the client's business) and rejects only when no response arrived:
 * with `signal.reason` when aborted, else a `KubeTransportError`.
 */
export interface KubeTransport {
  send(request: KubeHttpRequest): Promise<KubeHttpResponse>;
}
