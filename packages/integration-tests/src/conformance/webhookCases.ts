import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@protean/core';
import type { Json } from '@protean/envtest';
import { WebhookServer, type AdmissionRequest } from '@protean/webhooks';

/** The label a test puts on its namespaces; each configuration selects one value, so tests never see each other's webhooks. */
export const HOOKED_LABEL = 'conformance.protean.dev/hooked';
/** The label the mutating webhook adds. */
export const MUTATED_LABEL = 'conformance.protean.dev/defaulted-by';

/** What a review carries that is the same on every server (uids and timestamps aside). */
export interface ReviewSummary {
  operation: string;
  kind: unknown;
  resource: unknown;
  requestKind: unknown;
  requestResource: unknown;
  subResource: unknown;
  name: unknown;
  namespace: unknown;
  object: unknown;
  oldObject: unknown;
  dryRun: unknown;
  options: unknown;
  hasUid: boolean;
  hasUser: boolean;
}

/** The parts of `req` both servers must send alike; objects down to kind, name and data. */
export function summarise(req: AdmissionRequest): ReviewSummary {
  const obj = (o: Json | undefined): unknown =>
    o === undefined || o === null
      ? null
      : {
          kind: o['kind'],
          apiVersion: o['apiVersion'],
          name: (o['metadata'] as Json | undefined)?.['name'],
          namespace: (o['metadata'] as Json | undefined)?.['namespace'],
          data: o['data'],
        };
  return {
    operation: req.operation,
    kind: req.kind,
    resource: req.resource,
    requestKind: req.requestKind,
    requestResource: req.requestResource,
    subResource: req.subResource ?? null,
    name: req.name ?? null,
    namespace: req.namespace ?? null,
    object: obj(req.object),
    oldObject: obj(req.oldObject),
    dryRun: req.dryRun,
    options: req.options ?? null,
    hasUid: typeof req.uid === 'string' && req.uid !== '',
    hasUser: typeof req.userInfo.username === 'string' && req.userInfo.username !== '',
  };
}

/**
 * A WebhookServer on 127.0.0.1 with a self-signed certificate (openssl), serving the handlers the webhook
 * conformance cases configure:
 *
 * - `/deny-forbidden`: denies an object with `data.forbidden` (403, the message below); `data.invalid`: 422 Invalid.
 * - `/deny-all`: denies everything (`everything is denied here`).
 * - `/default`: adds the label {@link MUTATED_LABEL} and `data.defaulted` when missing.
 * - `/warn`: allows, with two warnings.
 * - `/record`: allows, and keeps every review it got.
 */
export class ConformanceWebhooks {
  readonly reviews: AdmissionRequest[] = [];
  private constructor(
    private readonly server: WebhookServer,
    private readonly dir: string,
    /** base64 of the serving certificate (PEM). */
    readonly caBundle: string,
    /** A URL on 127.0.0.1 nothing listens on. */
    readonly unreachableUrl: string,
  ) {}

  static async start(): Promise<ConformanceWebhooks> {
    const dir = mkdtempSync(join(tmpdir(), 'protean-conformance-hooks-'));
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '1', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'tls.key'), '-out', join(dir, 'tls.crt'),
    ], { stdio: 'ignore' }); // prettier-ignore
    const server = new WebhookServer({
      tls: { certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') },
      port: 0,
      host: '127.0.0.1',
      logger: silentLogger(),
    });
    const hooks = new ConformanceWebhooks(
      server,
      dir,
      readFileSync(join(dir, 'tls.crt')).toString('base64'),
      `https://127.0.0.1:${await closedPort()}/nothing-here`,
    );
    server
      .validate('/deny-forbidden', (req) => {
        const data = (req.object?.['data'] ?? {}) as Record<string, string>;
        if (data['invalid'] !== undefined) return { allowed: false, message: 'data.invalid is invalid', code: 422, reason: 'Invalid' };
        return data['forbidden'] === undefined ? { allowed: true } : { allowed: false, message: 'data.forbidden is not allowed here' };
      })
      .validate('/deny-all', () => ({ allowed: false, message: 'everything is denied here' }))
      .validate('/warn', () => ({ allowed: true, warnings: ['first webhook warning', 'second one, with "quotes"'] }))
      .validate('/record', (req) => {
        hooks.reviews.push(req);
        return { allowed: true };
      })
      .mutate('/default', (req) => {
        const object = structuredClone(req.object!);
        const meta = object['metadata'] as { labels?: Record<string, string> };
        meta.labels = { ...meta.labels, [MUTATED_LABEL]: 'webhook' };
        object['data'] = { defaulted: 'yes', ...((object['data'] ?? {}) as Json) };
        return { object };
      });
    await server.start();
    return hooks;
  }

  /** `https://127.0.0.1:PORT` + `path`. */
  url(path: string): string {
    return `${this.server.url}${path}`;
  }

  async stop(): Promise<void> {
    await this.server.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A port on 127.0.0.1 that was free a moment ago and is closed now. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * One webhook of a configuration for ConfigMaps in namespaces labelled `HOOKED_LABEL=<hooked>`, calling `url`
 * (failurePolicy Fail, 5 s); `extra` overrides any field.
 */
export function configMapHook(hooks: ConformanceWebhooks, name: string, url: string, hooked: string, extra: Json = {}): Json {
  return {
    name,
    clientConfig: { url, caBundle: hooks.caBundle },
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    namespaceSelector: { matchLabels: { [HOOKED_LABEL]: hooked } },
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    failurePolicy: 'Fail',
    timeoutSeconds: 5,
    ...extra,
  };
}
