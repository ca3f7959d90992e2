import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { createSecureServer, type Http2SecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import { createSecureContext } from 'node:tls';
import { dirname } from 'node:path';
import { createLogger, type Logger, tracing } from '@protean/core';
import { holdMemoryReducer } from '@protean/core/internal';
import { isObject, jsonPatchBetween } from './jsonPatch.js';
import type { CertificateSource } from './SelfManagedCertificates.js';
import type { AdmissionRequest, AdmissionResponse, ConversionRequest, MutationResult, ReviewObject, ValidationResult } from './reviews.js';

/**
 * The serving certificate: PEM text; files read at start and again whenever
 * they change (a mounted Secret); or a source whose every change is served
 * from then on (`SelfManagedCertificates`).
 */
export type ServingCertificate =
  { readonly cert: string; readonly key: string } | { readonly certFile: string; readonly keyFile: string } | CertificateSource;

/** Options of {@link WebhookServer}. */
export interface WebhookServerOptions {
  /** The serving certificate: PEM, files, or a source such as `SelfManagedCertificates` (see {@link ServingCertificate}). */
  readonly tls: ServingCertificate;
  /** Default 9443. 0: any free port (see {@link WebhookServer.url}). */
  readonly port?: number;
  /** Default `0.0.0.0`. */
  readonly host?: string;
  /**
   * How long a handler may take before the request is denied for it, in
   * milliseconds. Default 9,000: under kube-apiserver's default
   * `timeoutSeconds` (10), so the denial arrives before it gives up.
   */
  readonly handlerTimeoutMs?: number;
  /** A review larger than this is refused with 400 `ReviewTooLarge`. Default 8 MiB (an object is at most about 3). */
  readonly maxReviewBytes?: number;
  readonly logger?: Logger;
}

/** Validates one admission request; its `signal` aborts at the handler timeout. */
export type ValidatingHandler<T extends ReviewObject = ReviewObject> = (
  request: AdmissionRequest<T>,
  signal: AbortSignal,
) => ValidationResult | Promise<ValidationResult>;

/** Mutates one admission request: returns the object as it should be stored (or a denial). */
export type MutatingHandler<T extends ReviewObject = ReviewObject> = (
  request: AdmissionRequest<T>,
  signal: AbortSignal,
) => MutationResult<T> | Promise<MutationResult<T>>;

/** Converts one object to `desiredAPIVersion`; the result must carry that `apiVersion`. */
export type Converter = (object: ReviewObject, desiredAPIVersion: string, signal: AbortSignal) => ReviewObject | Promise<ReviewObject>;

type Route =
  | { readonly type: 'validating'; readonly handler: ValidatingHandler }
  | { readonly type: 'mutating'; readonly handler: MutatingHandler }
  | { readonly type: 'conversion'; readonly handler: Converter };

/** The HTTP answer to one review: its status and JSON body. */
export interface ReviewReply {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/**
 * How a review ended: `allowed` (a mutation included), `denied` by the
 * handler, `error` (it threw), `timeout`, `converted`, `conversion-failed`,
 * `malformed` (answered 400 or 405) or `not-found` (no webhook at the path).
 */
export type ReviewOutcome = 'allowed' | 'denied' | 'error' | 'timeout' | 'converted' | 'conversion-failed' | 'malformed' | 'not-found';

/** One review as {@link WebhookServer.onReview} reports it. */
export interface ReviewRecord {
  readonly path: string;
  readonly type: 'validating' | 'mutating' | 'conversion' | 'unknown';
  readonly outcome: ReviewOutcome;
  /** The denial's `status.reason` (`Forbidden`, `Timeout`, ...), or the refused review's error name. */
  readonly reason?: string;
  readonly durationMs: number;
}

/** Reviews answered at one path since the server was made. */
export interface RouteCounts {
  reviews: number;
  /** Allowed or converted. */
  allowed: number;
  /** Denied by the handler. */
  denied: number;
  /** The handler threw or timed out, or a conversion failed. */
  failed: number;
  /** Refused with 400/405. */
  malformed: number;
}

/** {@link WebhookServer.status}: whether it listens, and each path with its counts. */
export interface WebhookServerStatus {
  readonly listening: boolean;
  readonly url?: string;
  readonly routes: readonly ({ readonly path: string; readonly type: 'validating' | 'mutating' | 'conversion' } & Readonly<RouteCounts>)[];
}

/** A review that is not one: its HTTP answer is 400 with this error's name and message. */
export class MalformedReviewError extends Error {
  override readonly name: string = 'MalformedReviewError';
}

/** A review larger than `maxReviewBytes`: answered 400. */
export class ReviewTooLargeError extends MalformedReviewError {
  override readonly name = 'ReviewTooLargeError';
}

/** A handler that did not answer within `handlerTimeoutMs`. */
export class HandlerTimeoutError extends Error {
  override readonly name = 'HandlerTimeoutError';
}

const ADMISSION_API = 'admission.k8s.io/v1';
const CONVERSION_API = 'apiextensions.k8s.io/v1';

/**
 * An HTTPS server (HTTP/2, and HTTP/1.1 for clients without it) for
 * kube-apiserver's webhooks: AdmissionReview v1 for validating and mutating
 * handlers, ConversionReview v1 for converters, one path each. Handlers get
 * the typed request and answer with a decision or the object to store; the
 * server writes the review (a mutation as the JSON Patch from the request's
 * object to the returned one).
 *
 * What can go wrong is answered, never thrown: a body that is not a review
 * of the path's type, or is too large, gets 400 with a named error; a
 * handler that throws or passes `handlerTimeoutMs` denies the request with
 * a message naming the webhook, the operation and the object (fail closed:
 * a handler that should let requests through on its own failure catches
 * and allows); a converter that fails answers `Failure` with its message.
 *
 * Easy to get wrong: kube-apiserver calls only HTTPS, and checks the
 * certificate against the `caBundle` of the configuration (or of the CRD's
 * conversion) and the host it calls. A certificate given as files is read
 * again when they change; connections made before keep the old one.
 */
export class WebhookServer {
  private readonly routes = new Map<string, Route>();
  private readonly logger: Logger;
  private readonly handlerTimeoutMs: number;
  private readonly maxReviewBytes: number;
  private server: Http2SecureServer | undefined;
  /** Releases the memory reducer hold `start` took (see core's `holdMemoryReducer`). */
  private releaseMemoryReducer: (() => void) | undefined;
  /** Every connection: stop() ends them (an open HTTP/2 session would hold close() until it idles out). */
  private readonly sockets = new Set<Socket>();
  private readonly listeners = new Set<(record: ReviewRecord) => void>();
  private readonly tally = new Map<string, RouteCounts>();
  private watcher: FSWatcher | undefined;
  /** The pair {@link setCertificate} (or the certificate source) gave last: it is served instead of `tls`'s. */
  private certificate: { cert: string; key: string } | undefined;
  private unsubscribeCertificates: (() => void) | undefined;
  private address: AddressInfo | undefined;

  constructor(private readonly options: WebhookServerOptions) {
    this.logger = options.logger ?? createLogger({ name: 'protean-webhooks' });
    this.handlerTimeoutMs = options.handlerTimeoutMs ?? 9_000;
    this.maxReviewBytes = options.maxReviewBytes ?? 8 * 1024 * 1024;
  }

  /** Serves a validating webhook at `path` (e.g. `/validate-widgets`). */
  validate<T extends ReviewObject = ReviewObject>(path: string, handler: ValidatingHandler<T>): this {
    return this.route(path, { type: 'validating', handler: handler as unknown as ValidatingHandler });
  }

  /** Serves a mutating webhook at `path`. */
  mutate<T extends ReviewObject = ReviewObject>(path: string, handler: MutatingHandler<T>): this {
    return this.route(path, { type: 'mutating', handler: handler as unknown as MutatingHandler });
  }

  /** Serves a CRD's conversion webhook at `path`. */
  convert(path: string, converter: Converter): this {
    return this.route(path, { type: 'conversion', handler: converter });
  }

  /** `https://<host>:<port>` once started. */
  get url(): string {
    if (this.address === undefined) throw new Error('WebhookServer: not started');
    const host = this.address.address === '0.0.0.0' || this.address.address === '::' ? '127.0.0.1' : this.address.address;
    return `https://${host.includes(':') ? `[${host}]` : host}:${this.address.port}`;
  }

  /** Listens; resolves with the URL. */
  async start(): Promise<string> {
    if (this.server !== undefined) return this.url;
    const server = createSecureServer({ ...this.readCertificate(), allowHTTP1: true });
    server.on('secureConnection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    server.on('request', (req: Http2ServerRequest, res: Http2ServerResponse) => {
      this.serve(req, res).catch((err: unknown) => {
        // A client gone mid-request, say: nothing to answer to any more.
        this.logger.warn({ err, path: req.url }, 'a webhook request ended without an answer');
        if (!res.headersSent && !res.destroyed) answer(res, 500, { error: 'InternalError', message: String(err) });
      });
    });
    this.server = server;
    const tls = this.options.tls;
    if ('certFile' in tls) this.watcher = this.watchCertificate(tls.certFile, tls.keyFile);
    if ('onChange' in tls) this.unsubscribeCertificates = tls.onChange((c) => this.setCertificate({ cert: c.cert, key: c.key }));
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(this.options.port ?? 9443, this.options.host ?? '0.0.0.0', () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (err) {
      // A port in use, say: nothing left half started, so `start` can be called again.
      this.watcher?.close();
      this.watcher = undefined;
      this.unsubscribeCertificates?.();
      this.unsubscribeCertificates = undefined;
      this.server = undefined;
      throw err;
    }
    this.address = server.address() as AddressInfo;
    // Reviews come in bursts; what a burst leaves, V8 collects once the server idles (core's holdMemoryReducer).
    this.releaseMemoryReducer = holdMemoryReducer();
    return this.url;
  }

  /** Stops listening and closes every connection. */
  async stop(): Promise<void> {
    this.watcher?.close();
    this.unsubscribeCertificates?.();
    this.unsubscribeCertificates = undefined;
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    this.releaseMemoryReducer?.();
    this.releaseMemoryReducer = undefined;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of this.sockets) socket.destroy();
    });
  }

  private route(path: string, route: Route): this {
    if (!path.startsWith('/')) throw new TypeError(`WebhookServer: a path starts with "/", got ${JSON.stringify(path)}`);
    if (this.routes.has(path)) throw new TypeError(`WebhookServer: ${path} is already served (${this.routes.get(path)?.type})`);
    this.routes.set(path, route);
    return this;
  }

  /**
   * Serves `pair` from now on: new connections get it, connections already
   * open keep theirs (nothing in flight is dropped). A pair that does not
   * load throws, and the one in use stays. Before `start`, it is the pair
   * `start` serves.
   */
  setCertificate(pair: { readonly cert: string; readonly key: string }): void {
    const next = { cert: pair.cert, key: pair.key };
    if (this.server === undefined) createSecureContext(next);
    else this.server.setSecureContext(next);
    this.certificate = next;
    this.logger.info('webhook serving certificate replaced');
  }

  /** The pair to serve: the one last set, else `tls`'s (`files`: the files' content, whatever was set). */
  private readCertificate(files = false): { cert: string; key: string } {
    const tls = this.options.tls;
    if ('onChange' in tls) {
      // The source's latest (a server started again serves what the source holds now).
      const current = tls.current() ?? this.certificate;
      if (current === undefined) throw new Error('WebhookServer: the certificate source has no certificate yet: start it first');
      return { cert: current.cert, key: current.key };
    }
    if (this.certificate !== undefined && !files) return this.certificate;
    return 'cert' in tls
      ? { cert: tls.cert, key: tls.key }
      : { cert: readFileSync(tls.certFile, 'utf8'), key: readFileSync(tls.keyFile, 'utf8') };
  }

  /** Re-reads the certificate when its directory changes (a Secret volume swaps a symlink); a bad pair keeps the old one. */
  private watchCertificate(certFile: string, keyFile: string): FSWatcher {
    let timer: NodeJS.Timeout | undefined;
    const reload = (): void => {
      try {
        this.server?.setSecureContext(this.readCertificate(true));
        this.certificate = undefined;
        this.logger.info({ certFile, keyFile }, 'webhook serving certificate reloaded');
      } catch (err) {
        this.logger.warn({ err, certFile, keyFile }, 'webhook serving certificate not reloaded: keeping the one in use');
      }
    };
    const watcher = watch(dirname(certFile), () => {
      clearTimeout(timer);
      // Both files change in one swap: read once they are both written.
      timer = setTimeout(reload, 100);
      timer.unref();
    });
    watcher.unref();
    return watcher;
  }

  private async serve(req: Http2ServerRequest, res: Http2ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const type = String(req.headers['content-type'] ?? 'application/json');
    const reply = await this.handle(path, req.method, () => {
      // kube-apiserver sends JSON; anything else is not a review (read nothing of it).
      if (!/^application\/json\b/i.test(type)) throw new MalformedReviewError(`the body is ${type}, not application/json`);
      return readBody(req, this.maxReviewBytes);
    });
    answer(res, reply.status, reply.body);
  }

  /**
   * Answers one review in process, as the server answers it over HTTPS: the
   * HTTP status and the JSON body (a review, or `{ error, message }`).
   * For tests (`@protean/testing`'s AdmissionReview fixtures), and for a
   * server that receives reviews some other way. Works before `start`.
   */
  review(path: string, body: string | object, method = 'POST'): Promise<ReviewReply> {
    return this.handle(path, method, () => {
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      const size = Buffer.byteLength(text);
      if (size > this.maxReviewBytes) {
        throw new ReviewTooLargeError(`the review is ${size} bytes, more than the ${this.maxReviewBytes} this server takes`);
      }
      return text;
    });
  }

  /**
   * Calls `listener` after every review answered (or refused): path, type,
   * outcome and duration. Metrics and the status page read reviews this
   * way (`instrumentWebhooks` of `@protean/metrics`). Returns the unsubscribe.
   */
  onReview(listener: (record: ReviewRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** What the server serves and has answered, per path, for a status page. */
  status(): WebhookServerStatus {
    return {
      listening: this.server !== undefined && this.address !== undefined,
      ...(this.address === undefined ? {} : { url: this.url }),
      routes: [...this.routes].map(([path, route]) => ({ path, type: route.type, ...this.counts(path) })),
    };
  }

  /** A readiness check (`@protean/metrics`' `ReadinessCheck`): ready once listening with a certificate. */
  readiness(): { readonly name: string; ready(): { ready: boolean; reason?: string } } {
    return {
      name: 'webhooks',
      ready: () =>
        this.server !== undefined && this.address !== undefined
          ? { ready: true }
          : { ready: false, reason: 'the webhook server is not listening yet' },
    };
  }

  private counts(path: string): RouteCounts {
    let counts = this.tally.get(path);
    if (counts === undefined) {
      counts = { reviews: 0, allowed: 0, denied: 0, failed: 0, malformed: 0 };
      this.tally.set(path, counts);
    }
    return counts;
  }

  private async handle(path: string, method: string, body: () => string | Promise<string>): Promise<ReviewReply> {
    const started = performance.now();
    const route = this.routes.get(path);
    const type = route?.type ?? 'unknown';
    const span = tracing.refresh()
      ? tracing.startSpan('protean.webhook', { parent: 'root', attributes: { 'protean.webhook.path': path } })
      : undefined;
    const done = (reply: ReviewReply, outcome: ReviewOutcome, reason?: string): ReviewReply => {
      const durationMs = performance.now() - started;
      if (route !== undefined) {
        const counts = this.counts(path);
        counts.reviews++;
        if (outcome === 'allowed' || outcome === 'converted') counts.allowed++;
        else if (outcome === 'denied') counts.denied++;
        else if (outcome === 'malformed') counts.malformed++;
        else counts.failed++;
      }
      if (span !== undefined) {
        span.setAttribute('protean.webhook.outcome', outcome);
        if (reason !== undefined) span.setAttribute('protean.webhook.reason', reason);
        span.end();
      }
      if (this.listeners.size === 0) return reply;
      const record: ReviewRecord = { path, type, outcome, durationMs, ...(reason === undefined ? {} : { reason }) };
      for (const listener of this.listeners) {
        try {
          listener(record);
        } catch (err) {
          this.logger.warn({ err, path }, 'a review listener threw');
        }
      }
      return reply;
    };
    if (route === undefined)
      return done({ status: 404, body: { error: 'NotFound', message: `no webhook is served at ${path}` } }, 'not-found');
    if (method !== 'POST') return done({ status: 405, body: { error: 'MethodNotAllowed', message: `${path} takes POST` } }, 'malformed');
    let review: Record<string, unknown>;
    try {
      review = parseReview(await body(), route.type === 'conversion' ? CONVERSION_API : ADMISSION_API);
    } catch (err) {
      if (!(err instanceof MalformedReviewError)) throw err;
      this.logger.warn({ path, err: err.message }, 'a malformed review was refused');
      return done({ status: 400, body: { error: err.name, message: `${path}: ${err.message}` } }, 'malformed', err.name);
    }
    if (route.type === 'conversion') {
      const converted = await this.convertReview(path, route.handler, review);
      const failed = (converted['response'] as { result: { status: string } }).result.status !== 'Success';
      return done({ status: 200, body: converted }, failed ? 'conversion-failed' : 'converted');
    }
    const request = review['request'] as AdmissionRequest;
    if (span !== undefined) {
      span.setAttribute('protean.webhook.operation', request.operation);
      span.setAttribute('protean.webhook.kind', request.kind.kind);
      if (request.namespace !== undefined) span.setAttribute('k8s.namespace.name', request.namespace);
      if (request.name !== undefined) span.setAttribute('protean.webhook.name', request.name);
    }
    const { response, outcome } = await this.admit(path, route, request);
    return done({ status: 200, body: { apiVersion: ADMISSION_API, kind: 'AdmissionReview', response } }, outcome, response.status?.reason);
  }

  private async admit(
    path: string,
    route: Extract<Route, { type: 'validating' | 'mutating' }>,
    request: AdmissionRequest,
  ): Promise<{ response: AdmissionResponse; outcome: ReviewOutcome }> {
    const base = { uid: request.uid };
    let result: ValidationResult | MutationResult;
    try {
      result = await this.withTimeout((signal) => route.handler(request, signal));
    } catch (err) {
      const what = describeRequest(request);
      const timedOut = err instanceof HandlerTimeoutError;
      this.logger.error({ path, err, request: what }, timedOut ? 'a webhook handler timed out' : 'a webhook handler failed');
      const message = timedOut
        ? `webhook ${path} did not decide on ${what} within ${this.handlerTimeoutMs} ms`
        : `webhook ${path} failed on ${what}: ${err instanceof Error ? err.message : String(err)}`;
      const reason = timedOut ? 'Timeout' : 'InternalError';
      return {
        response: { ...base, allowed: false, status: { code: timedOut ? 504 : 500, message, reason } },
        outcome: timedOut ? 'timeout' : 'error',
      };
    }
    const warnings = result.warnings === undefined ? {} : { warnings: [...result.warnings] };
    if (result.allowed === false) {
      const status = {
        code: result.code ?? 403,
        message: result.message,
        ...(result.reason === undefined ? {} : { reason: result.reason }),
      };
      return { response: { ...base, allowed: false, status, ...warnings }, outcome: 'denied' };
    }
    if (route.type === 'mutating' && 'object' in result && result.object !== undefined && request.object !== undefined) {
      const ops = jsonPatchBetween(request.object, result.object);
      if (ops.length > 0) {
        const patch = Buffer.from(JSON.stringify(ops)).toString('base64');
        return { response: { ...base, allowed: true, patchType: 'JSONPatch', patch, ...warnings }, outcome: 'allowed' };
      }
    }
    return { response: { ...base, allowed: true, ...warnings }, outcome: 'allowed' };
  }

  private async convertReview(path: string, converter: Converter, review: Record<string, unknown>): Promise<Record<string, unknown>> {
    const request = review['request'] as ConversionRequest;
    const envelope = (response: Record<string, unknown>): Record<string, unknown> => ({
      apiVersion: CONVERSION_API,
      kind: 'ConversionReview',
      response: { uid: request.uid, ...response },
    });
    try {
      const converted = await this.withTimeout((signal) =>
        Promise.all(
          request.objects.map(async (object) => {
            const out = await converter(object, request.desiredAPIVersion, signal);
            if (out['apiVersion'] !== request.desiredAPIVersion) {
              throw new Error(
                `converting ${describeObject(object)} to ${request.desiredAPIVersion} gave apiVersion ${JSON.stringify(out['apiVersion'])}`,
              );
            }
            return out;
          }),
        ),
      );
      return envelope({ convertedObjects: converted, result: { status: 'Success' } });
    } catch (err) {
      const message = `conversion webhook ${path}: ${err instanceof Error ? err.message : String(err)}`;
      this.logger.error({ path, err }, 'a conversion failed');
      return envelope({ convertedObjects: [], result: { status: 'Failure', message } });
    }
  }

  private async withTimeout<R>(run: (signal: AbortSignal) => R | Promise<R>): Promise<R> {
    const controller = new AbortController();
    // A handler that answers at once (most do) needs no timer; one that throws rejects this call.
    const result = run(controller.signal);
    // By shape: a promise of another realm (a test's vm context) is one too.
    if (typeof (result as { then?: unknown } | null)?.then !== 'function') return result as R;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const err = new HandlerTimeoutError(`no answer within ${this.handlerTimeoutMs} ms`);
        // Settled first, so the race ends with the timeout even when the handler rejects on the abort.
        reject(err);
        controller.abort(err);
      }, this.handlerTimeoutMs);
    });
    try {
      return await Promise.race([result as Promise<R>, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}

function answer(res: Http2ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function readBody(req: Http2ServerRequest, limit: number): Promise<string> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit) {
    return Promise.reject(new ReviewTooLargeError(`the review is ${declared} bytes, more than the ${limit} this server takes`));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else {
        req.off('data', onData);
        req.resume();
        reject(new ReviewTooLargeError(`the review is more than the ${limit} bytes this server takes`));
      }
    };
    req.on('data', onData);
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}

const OPERATIONS = new Set(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']);

/**
 * The review as an object, checked to be a `kind` review of `apiVersion`
 * whose request has every field a handler reads typed as declared (so a
 * handler never meets a string where an object was promised). A JSON
 * `null` object (kube-apiserver's on DELETE) becomes an absent one.
 */
function parseReview(text: string, apiVersion: string): Record<string, unknown> {
  const kind = apiVersion === ADMISSION_API ? 'AdmissionReview' : 'ConversionReview';
  if (text.trim() === '') throw new MalformedReviewError('the body is empty');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw new MalformedReviewError(`the body is not JSON (${(err as Error).message})`);
  }
  if (!isObject(body)) throw new MalformedReviewError(`the body is not a ${kind}`);
  if (body['apiVersion'] !== apiVersion || body['kind'] !== kind) {
    throw new MalformedReviewError(
      `expected a ${kind} of ${apiVersion}, got kind ${JSON.stringify(body['kind'])} of ${JSON.stringify(body['apiVersion'])}`,
    );
  }
  const r = body['request'];
  if (!isObject(r) || typeof r['uid'] !== 'string' || r['uid'] === '')
    throw new MalformedReviewError(`the ${kind} has no request with a uid`);
  if (kind === 'ConversionReview') {
    if (typeof r['desiredAPIVersion'] !== 'string' || r['desiredAPIVersion'] === '' || !Array.isArray(r['objects'])) {
      throw new MalformedReviewError('the ConversionReview request needs desiredAPIVersion and objects');
    }
    (r['objects'] as unknown[]).forEach((o, i) => {
      if (!isObject(o) || typeof o['apiVersion'] !== 'string' || typeof o['kind'] !== 'string') {
        throw new MalformedReviewError(`request.objects[${i}] is not an object with apiVersion and kind`);
      }
    });
    return body;
  }
  const operation = r['operation'];
  if (typeof operation !== 'string') throw new MalformedReviewError('the AdmissionReview request has no operation');
  if (!OPERATIONS.has(operation))
    throw new MalformedReviewError(`request.operation ${JSON.stringify(operation)} is not CREATE, UPDATE, DELETE or CONNECT`);
  for (const [field, members] of [
    ['kind', ['group', 'version', 'kind']],
    ['resource', ['group', 'version', 'resource']],
  ] as const) {
    const value = r[field];
    if (!isObject(value) || members.some((m) => typeof value[m] !== 'string')) {
      throw new MalformedReviewError(`request.${field} needs string ${members.join(', ')}`);
    }
  }
  if (r['userInfo'] !== undefined && !isObject(r['userInfo'])) throw new MalformedReviewError('request.userInfo is not an object');
  for (const field of ['name', 'namespace'] as const) {
    if (r[field] !== undefined && typeof r[field] !== 'string') throw new MalformedReviewError(`request.${field} is not a string`);
  }
  for (const field of ['object', 'oldObject', 'options'] as const) {
    if (r[field] === null) delete r[field];
    else if (r[field] !== undefined && !isObject(r[field])) throw new MalformedReviewError(`request.${field} is not an object`);
  }
  if ((operation === 'CREATE' || operation === 'UPDATE') && r['object'] === undefined) {
    throw new MalformedReviewError(`a ${operation} request has no object`);
  }
  if (operation === 'UPDATE' && r['oldObject'] === undefined) throw new MalformedReviewError('an UPDATE request has no oldObject');
  r['userInfo'] ??= {};
  return body;
}

function describeObject(object: ReviewObject): string {
  const meta = (object['metadata'] ?? {}) as { name?: string; namespace?: string };
  return `${String(object['kind'] ?? 'object')} ${meta.namespace === undefined ? '' : `${meta.namespace}/`}${meta.name ?? ''}`;
}

function describeRequest(request: AdmissionRequest): string {
  const name = request.name === undefined || request.name === '' ? '(name to be generated)' : request.name;
  return `${request.operation} of ${request.kind.kind} ${request.namespace === undefined || request.namespace === '' ? '' : `${request.namespace}/`}${name}`;
}
