import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { createSecureServer, type Http2SecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import { dirname } from 'node:path';
import { createLogger, type Logger } from '@protean/core';
import { jsonPatchBetween } from './jsonPatch.js';
import type { AdmissionRequest, AdmissionResponse, ConversionRequest, MutationResult, ReviewObject, ValidationResult } from './reviews.js';

/** The serving certificate: PEM text, or files read at start and again whenever they change (a mounted Secret). */
export type ServingCertificate = { readonly cert: string; readonly key: string } | { readonly certFile: string; readonly keyFile: string };

/** Options of {@link WebhookServer}. */
export interface WebhookServerOptions {
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
  /** Every connection: stop() ends them (an open HTTP/2 session would hold close() until it idles out). */
  private readonly sockets = new Set<Socket>();
  private watcher: FSWatcher | undefined;
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
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port ?? 9443, this.options.host ?? '0.0.0.0', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.address = server.address() as AddressInfo;
    return this.url;
  }

  /** Stops listening and closes every connection. */
  async stop(): Promise<void> {
    this.watcher?.close();
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
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

  private readCertificate(): { cert: string; key: string } {
    const tls = this.options.tls;
    return 'cert' in tls
      ? { cert: tls.cert, key: tls.key }
      : { cert: readFileSync(tls.certFile, 'utf8'), key: readFileSync(tls.keyFile, 'utf8') };
  }

  /** Re-reads the certificate when its directory changes (a Secret volume swaps a symlink); a bad pair keeps the old one. */
  private watchCertificate(certFile: string, keyFile: string): FSWatcher {
    let timer: NodeJS.Timeout | undefined;
    const reload = (): void => {
      try {
        this.server?.setSecureContext(this.readCertificate());
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
    const route = this.routes.get(path);
    if (route === undefined) return answer(res, 404, { error: 'NotFound', message: `no webhook is served at ${path}` });
    if (req.method !== 'POST') return answer(res, 405, { error: 'MethodNotAllowed', message: `${path} takes POST` });
    let review: Record<string, unknown>;
    try {
      review = parseReview(await readBody(req, this.maxReviewBytes), route.type === 'conversion' ? CONVERSION_API : ADMISSION_API);
    } catch (err) {
      if (!(err instanceof MalformedReviewError)) throw err;
      this.logger.warn({ path, err: err.message }, 'a malformed review was refused');
      return answer(res, 400, { error: err.name, message: `${path}: ${err.message}` });
    }
    if (route.type === 'conversion') return answer(res, 200, await this.convertReview(path, route.handler, review));
    const request = review['request'] as AdmissionRequest;
    const response = await this.admit(path, route, request);
    return answer(res, 200, { apiVersion: ADMISSION_API, kind: 'AdmissionReview', response });
  }

  private async admit(
    path: string,
    route: Extract<Route, { type: 'validating' | 'mutating' }>,
    request: AdmissionRequest,
  ): Promise<AdmissionResponse> {
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
      return { ...base, allowed: false, status: { code: timedOut ? 504 : 500, message, reason: timedOut ? 'Timeout' : 'InternalError' } };
    }
    const warnings = result.warnings === undefined ? {} : { warnings: [...result.warnings] };
    if (result.allowed === false) {
      const status = {
        code: result.code ?? 403,
        message: result.message,
        ...(result.reason === undefined ? {} : { reason: result.reason }),
      };
      return { ...base, allowed: false, status, ...warnings };
    }
    if (route.type === 'mutating' && 'object' in result && result.object !== undefined && request.object !== undefined) {
      const ops = jsonPatchBetween(request.object, result.object);
      if (ops.length > 0) {
        return { ...base, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64'), ...warnings };
      }
    }
    return { ...base, allowed: true, ...warnings };
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
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const err = new HandlerTimeoutError(`no answer within ${this.handlerTimeoutMs} ms`);
        controller.abort(err);
        reject(err);
      }, this.handlerTimeoutMs);
    });
    try {
      return await Promise.race([Promise.resolve().then(() => run(controller.signal)), timeout]);
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

async function readBody(req: Http2ServerRequest, limit: number): Promise<string> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit) throw new ReviewTooLargeError(`the review is ${declared} bytes, more than the ${limit} this server takes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new ReviewTooLargeError(`the review is more than the ${limit} bytes this server takes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The review as an object, checked to be a `kind` review of `apiVersion` with a request and its uid. */
function parseReview(text: string, apiVersion: string): Record<string, unknown> {
  const kind = apiVersion === ADMISSION_API ? 'AdmissionReview' : 'ConversionReview';
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw new MalformedReviewError(`the body is not JSON (${(err as Error).message})`);
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new MalformedReviewError(`the body is not a ${kind}`);
  const review = body as Record<string, unknown>;
  if (review['apiVersion'] !== apiVersion || review['kind'] !== kind) {
    throw new MalformedReviewError(
      `expected a ${kind} of ${apiVersion}, got kind ${JSON.stringify(review['kind'])} of ${JSON.stringify(review['apiVersion'])}`,
    );
  }
  const request = review['request'];
  if (request === null || typeof request !== 'object' || typeof (request as Record<string, unknown>)['uid'] !== 'string') {
    throw new MalformedReviewError(`the ${kind} has no request with a uid`);
  }
  const r = request as Record<string, unknown>;
  if (kind === 'ConversionReview' && (typeof r['desiredAPIVersion'] !== 'string' || !Array.isArray(r['objects']))) {
    throw new MalformedReviewError('the ConversionReview request needs desiredAPIVersion and objects');
  }
  if (kind === 'AdmissionReview' && typeof r['operation'] !== 'string') {
    throw new MalformedReviewError('the AdmissionReview request has no operation');
  }
  return review;
}

function describeObject(object: ReviewObject): string {
  const meta = (object['metadata'] ?? {}) as { name?: string; namespace?: string };
  return `${String(object['kind'] ?? 'object')} ${meta.namespace === undefined ? '' : `${meta.namespace}/`}${meta.name ?? ''}`;
}

function describeRequest(request: AdmissionRequest): string {
  const name = request.name === undefined || request.name === '' ? '(name to be generated)' : request.name;
  return `${request.operation} of ${request.kind.kind} ${request.namespace === undefined || request.namespace === '' ? '' : `${request.namespace}/`}${name}`;
}
