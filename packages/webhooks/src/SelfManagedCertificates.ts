import { isAlreadyExists, isConflict, type KubeClient, type KubeObject } from '@protean/client';
import { createLogger, type Logger } from '@protean/core';
import {
  certificateFacts,
  type CertificateKeyPair,
  coversNames,
  createCertificateAuthority,
  createServingCertificate,
  DEFAULT_CA_VALIDITY_MS,
  DEFAULT_SERVING_VALIDITY_MS,
  matchesKey,
  signedBy,
  splitPemBundle,
} from './certificates.js';

/** What a webhook server serves and what kube-apiserver must trust: the serving pair (PEM) and the CA bundle. */
export interface WebhookCertificates extends CertificateKeyPair {
  /** Every CA kube-apiserver must trust now, PEM, concatenated: the `caBundle` (base64 of it) of the configurations. */
  readonly caPem: string;
}

/** Called with the new certificates whenever the serving pair or the CA bundle changes. */
export type CertificateListener = (certificates: WebhookCertificates) => void | Promise<void>;

/** A source of serving certificates that change while the server runs: {@link SelfManagedCertificates} is one. */
export interface CertificateSource {
  /** The certificates to serve now, or `undefined` before there are any. */
  current(): WebhookCertificates | undefined;
  /** Calls `listener` after every change; the function it returns stops that. */
  onChange(listener: CertificateListener): () => void;
}

/** Options of {@link SelfManagedCertificates}. */
export interface SelfManagedCertificatesOptions {
  /** A client allowed to get, create and update the Secret. */
  readonly client: KubeClient;
  /** The namespace of the Secret (the controller's own). */
  readonly namespace: string;
  /** The Secret that holds the CA and the serving certificate, shared by every replica. */
  readonly secretName: string;
  /** DNS names the serving certificate is for: a Service's `<name>.<namespace>.svc`, say. */
  readonly dnsNames?: readonly string[];
  /** IP addresses the serving certificate is for (a URL webhook on an address). */
  readonly ipAddresses?: readonly string[];
  /** Validity of a new CA, in milliseconds. Default one year. */
  readonly caValidityMs?: number;
  /** Validity of a new serving certificate, in milliseconds. Default 30 days. */
  readonly servingValidityMs?: number;
  /**
   * Which part of a certificate's life passes before it is renewed (the
   * serving certificate), or replaced by a new CA (the CA). Default 2/3.
   */
  readonly renewAfter?: number;
  /**
   * How long both CAs are in the bundle before the new one signs, and again
   * after, before the old one leaves it, in milliseconds: longer than
   * `checkIntervalMs` plus the time kube-apiserver takes to see a
   * configuration change. Default 5 minutes.
   */
  readonly caOverlapMs?: number;
  /** How often the Secret is read again, in milliseconds. Default 60,000 (and sooner when a renewal is due). */
  readonly checkIntervalMs?: number;
  /** Written as the Secret's `app.kubernetes.io/managed-by` label. Default `protean-webhooks`. */
  readonly fieldManager?: string;
  /** Where renewals and failures are logged. Default a `protean-webhooks` logger. */
  readonly logger?: Logger;
}

const SECRETS = { group: '', version: 'v1', resource: 'secrets' } as const;
/** Set while a new CA is in the bundle but does not sign yet: from when it signs. */
const PROMOTE_AT = 'webhooks.protean.dev/ca-promote-at';
/** Set once a new CA signs: from when the CAs other than it leave the bundle. */
const RETIRE_AT = 'webhooks.protean.dev/ca-retire-at';

/** The Secret as parsed: the serving pair, the bundle, the CA that signs and the one that will. */
interface State {
  readonly serving: CertificateKeyPair;
  /** Every trusted CA, PEM each. */
  readonly bundle: readonly string[];
  readonly signer: CertificateKeyPair;
  readonly next?: CertificateKeyPair | undefined;
  readonly promoteAt?: number | undefined;
  readonly retireAt?: number | undefined;
}

type SecretObject = KubeObject & { type?: string; data?: Record<string, string> };

/** What a refresh is asked to do whatever the dates say. */
interface Force {
  readonly serving?: boolean;
  readonly ca?: boolean;
}

/**
 * A CA and a serving certificate made and rotated by the controller itself,
 * kept in one Secret (`kubernetes.io/tls`, with `ca.crt` and the CA's key)
 * that every replica shares: `start` makes the Secret when missing, then
 * reads it again every `checkIntervalMs` (or sooner when something is due)
 * and renews what is due. Give it to `WebhookServer` as `tls`, and pass
 * `caPem` to `AdmissionRegistrar.setCaBundle` (and a CRD's conversion, see
 * {@link keepConversionCaBundle}) from {@link onChange}.
 *
 * The serving certificate is renewed once `renewAfter` of its life has
 * passed. The CA is replaced in three steps, each changing one side only,
 * so kube-apiserver never meets a certificate its `caBundle` does not
 * trust: the new CA joins the bundle; `caOverlapMs` later it signs a new
 * serving certificate; `caOverlapMs` after that the old CA leaves the bundle.
 *
 * Replicas renewing at once cannot both win: writes carry the
 * `resourceVersion` read, and the one that loses reads again and uses the
 * winner's certificates.
 *
 * Easy to get wrong: every replica must be configured with the same names
 * (a replica whose names the stored certificate lacks renews it), and the
 * Secret holds the CA's private key: allow only this controller to read it.
 */
export class SelfManagedCertificates implements CertificateSource {
  private readonly logger: Logger;
  private readonly dnsNames: readonly string[];
  private readonly ipAddresses: readonly string[];
  private readonly caValidityMs: number;
  private readonly servingValidityMs: number;
  private readonly renewAfter: number;
  private readonly caOverlapMs: number;
  private readonly checkIntervalMs: number;
  private readonly fieldManager: string;
  private readonly listeners = new Set<CertificateListener>();
  private state: State | undefined;
  private material: WebhookCertificates | undefined;
  /** A listener failed: every listener gets the certificates again at the next check. */
  private redeliver = false;
  /** Refreshes run one after another. */
  private chain: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: SelfManagedCertificatesOptions) {
    this.logger = options.logger ?? createLogger({ name: 'protean-webhooks' });
    this.dnsNames = options.dnsNames ?? [];
    this.ipAddresses = options.ipAddresses ?? [];
    this.caValidityMs = options.caValidityMs ?? DEFAULT_CA_VALIDITY_MS;
    this.servingValidityMs = options.servingValidityMs ?? DEFAULT_SERVING_VALIDITY_MS;
    this.renewAfter = options.renewAfter ?? 2 / 3;
    this.caOverlapMs = options.caOverlapMs ?? 5 * 60_000;
    this.checkIntervalMs = options.checkIntervalMs ?? 60_000;
    this.fieldManager = options.fieldManager ?? 'protean-webhooks';
    const name = `SelfManagedCertificates ${options.namespace}/${options.secretName}`;
    if (this.dnsNames.length === 0 && this.ipAddresses.length === 0) throw new TypeError(`${name}: needs dnsNames or ipAddresses`);
    if (!(this.renewAfter > 0 && this.renewAfter < 1)) throw new TypeError(`${name}: renewAfter is a fraction between 0 and 1`);
    if (!(this.checkIntervalMs > 0)) throw new TypeError(`${name}: checkIntervalMs must be positive`);
    if (!(this.caOverlapMs > this.checkIntervalMs)) {
      throw new TypeError(`${name}: caOverlapMs (${this.caOverlapMs}) must be longer than checkIntervalMs (${this.checkIntervalMs})`);
    }
    if (this.servingValidityMs > this.caValidityMs * (1 - this.renewAfter)) {
      throw new TypeError(`${name}: servingValidityMs must fit in the part of the CA's life left after renewAfter`);
    }
  }

  /**
   * Reads the Secret (making it when missing, renewing what is due) and
   * resolves once the certificates are known; then keeps checking until
   * `signal` aborts. Rejects when the first read or write fails (a missing
   * permission, say); later failures are logged and tried again.
   */
  async start(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    await this.refresh({}, signal);
    const schedule = (): void => {
      if (signal?.aborted === true) return;
      this.timer = setTimeout(() => {
        this.refresh({}, signal)
          .catch((err: unknown) => {
            if (signal?.aborted !== true)
              this.logger.warn({ err, secret: this.secretRef() }, 'webhook certificates not checked: trying again');
          })
          .finally(schedule);
      }, this.nextCheckInMs());
      this.timer.unref();
    };
    schedule();
    signal?.addEventListener('abort', () => clearTimeout(this.timer), { once: true });
  }

  /** The serving pair and the CA bundle now, or `undefined` before `start` resolved. */
  current(): WebhookCertificates | undefined {
    return this.material;
  }

  /** The CA bundle (PEM) kube-apiserver must trust now. Throws before `start` resolved. */
  get caPem(): string {
    if (this.material === undefined) throw new Error(`SelfManagedCertificates ${this.secretRef()}: not started`);
    return this.material.caPem;
  }

  /** Calls `listener` (awaited, one after another) whenever the serving pair or the bundle changes; returns a function that stops it. */
  onChange(listener: CertificateListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Renews the serving certificate now (signed by the CA that signs now), whatever its age; resolves with the new one in use. */
  async rotate(signal?: AbortSignal): Promise<WebhookCertificates> {
    await this.refresh({ serving: true }, signal);
    return this.material!;
  }

  /**
   * Starts replacing the CA now: the new one joins the bundle at once and
   * signs from `caOverlapMs` on (the checks carry it on). Nothing happens
   * while a replacement is under way.
   */
  async rotateCa(signal?: AbortSignal): Promise<WebhookCertificates> {
    await this.refresh({ ca: true }, signal);
    return this.material!;
  }

  /** Reads the Secret and renews what is due, as the timer does. */
  check(signal?: AbortSignal): Promise<void> {
    return this.refresh({}, signal);
  }

  private refresh(force: Force, signal: AbortSignal | undefined): Promise<void> {
    const run = this.chain.then(() => this.refreshOnce(force, signal));
    this.chain = run.catch(() => {});
    return run;
  }

  private async refreshOnce(force: Force, signal: AbortSignal | undefined): Promise<void> {
    const { client, namespace, secretName: name } = this.options;
    const requestOptions = signal === undefined ? {} : { signal };
    for (let attempt = 0; attempt < 5; attempt++) {
      const secret = await client.find<SecretObject>(SECRETS, { namespace, name }, requestOptions);
      const stored = secret === undefined ? undefined : this.parse(secret);
      // A lost race: the winner renewed already, so what was forced is done.
      const next = await this.plan(stored, Date.now(), attempt === 0 ? force : {});
      if (next === undefined) return this.adopt(stored!);
      try {
        if (secret === undefined) await client.create(SECRETS, this.toSecret(next, undefined), requestOptions);
        else await client.update(SECRETS, this.toSecret(next, secret), requestOptions);
      } catch (err) {
        if (isConflict(err) || isAlreadyExists(err)) {
          this.logger.debug({ secret: this.secretRef() }, 'another replica wrote the webhook certificates first: reading theirs');
          continue;
        }
        throw err;
      }
      this.logger.info({ secret: this.secretRef(), ...describeChange(stored, next) }, 'webhook certificates written');
      return this.adopt(next);
    }
    throw new Error(`SelfManagedCertificates ${this.secretRef()}: five writes in a row lost to other writers`);
  }

  /** The state the Secret should hold, or `undefined` when it holds it already. */
  private async plan(state: State | undefined, now: number, force: Force): Promise<State | undefined> {
    if (state === undefined || certificateFacts(state.signer.cert).notAfter.getTime() <= now) {
      if (state !== undefined) this.logger.warn({ secret: this.secretRef() }, 'the webhook CA expired: starting over with a new one');
      const ca = await createCertificateAuthority({ validityMs: this.caValidityMs });
      return { serving: await this.issue(ca), bundle: [ca.cert], signer: ca };
    }
    let s: State = state;
    let changed = false;
    const kept = s.bundle.filter((pem) => pem === s.signer.cert || pem === s.next?.cert || certificateFacts(pem).notAfter.getTime() > now);
    if (kept.length !== s.bundle.length) {
      s = { ...s, bundle: kept };
      changed = true;
    }
    if (s.next !== undefined && now >= (s.promoteAt ?? 0)) {
      // Step 2: every trusted bundle has held the new CA for caOverlapMs: it signs from now on.
      const signer = s.next;
      return { serving: await this.issue(signer), bundle: s.bundle, signer, retireAt: now + this.caOverlapMs };
    }
    if (s.next === undefined && s.retireAt !== undefined && now >= s.retireAt) {
      // Step 3: every replica serves a certificate of the new CA by now.
      s = { serving: s.serving, bundle: [s.signer.cert], signer: s.signer };
      changed = true;
    }
    if (s.next === undefined && s.retireAt === undefined && (force.ca === true || now >= this.renewalTime(s.signer.cert))) {
      // Step 1: the new CA joins the bundle; it signs nothing yet.
      const next = await createCertificateAuthority({ validityMs: this.caValidityMs });
      s = { ...s, bundle: [...s.bundle, next.cert], next, promoteAt: now + this.caOverlapMs };
      changed = true;
    }
    const serving = s.serving;
    if (
      force.serving === true ||
      now >= this.renewalTime(serving.cert) ||
      !matchesKey(serving.cert, serving.key) ||
      !signedBy(serving.cert, s.signer.cert) ||
      !coversNames(serving.cert, this.dnsNames, this.ipAddresses)
    ) {
      s = { ...s, serving: await this.issue(s.signer) };
      changed = true;
    }
    return changed ? s : undefined;
  }

  private issue(ca: CertificateKeyPair): Promise<CertificateKeyPair> {
    return createServingCertificate(ca, { dnsNames: this.dnsNames, ipAddresses: this.ipAddresses, validityMs: this.servingValidityMs });
  }

  /** When `renewAfter` of the certificate's life will have passed. */
  private renewalTime(pem: string): number {
    const { notBefore, notAfter } = certificateFacts(pem);
    return notBefore.getTime() + this.renewAfter * (notAfter.getTime() - notBefore.getTime());
  }

  /** How long until the next check: the interval, or less when a renewal or a step of a CA replacement is due before. */
  private nextCheckInMs(): number {
    const s = this.state;
    if (s === undefined) return this.checkIntervalMs;
    // While a CA replacement is under way, the old signer's renewal is that replacement: its steps are the times.
    const replacing = s.next !== undefined || s.retireAt !== undefined;
    const due = [
      this.renewalTime(s.serving.cert),
      replacing ? Infinity : this.renewalTime(s.signer.cert),
      s.promoteAt ?? Infinity,
      s.retireAt ?? Infinity,
    ];
    const wait = Math.min(...due) - Date.now();
    // Past due yet nothing to do (a CA renewal waiting for the replacement under way): no busy loop.
    return Math.max(Math.min(this.checkIntervalMs, wait + 10), Math.min(this.checkIntervalMs, 200));
  }

  /** Takes `state` as the one in use, telling the listeners when what they see changed. */
  private async adopt(state: State): Promise<void> {
    this.state = state;
    const material: WebhookCertificates = { cert: state.serving.cert, key: state.serving.key, caPem: state.bundle.join('') };
    const previous = this.material;
    const same =
      previous !== undefined && previous.cert === material.cert && previous.key === material.key && previous.caPem === material.caPem;
    if (same && !this.redeliver) return;
    this.material = material;
    this.redeliver = false;
    for (const listener of [...this.listeners]) {
      try {
        await listener(material);
      } catch (err) {
        this.redeliver = true;
        this.logger.error({ err, secret: this.secretRef() }, 'a webhook certificate listener failed: it is called again at the next check');
      }
    }
  }

  /** The Secret's content, or `undefined` (to be made again) when it is not whole. */
  private parse(secret: SecretObject): State | undefined {
    const data = secret.data ?? {};
    const text = (key: string): string | undefined =>
      data[key] === undefined ? undefined : Buffer.from(data[key], 'base64').toString('utf8');
    const servingCert = text('tls.crt');
    const servingKey = text('tls.key');
    const bundleText = text('ca.crt');
    const caKey = text('ca.key');
    if (servingCert === undefined || servingKey === undefined || bundleText === undefined || caKey === undefined) {
      this.logger.warn({ secret: this.secretRef() }, 'the webhook certificate Secret lacks a key: making it again');
      return undefined;
    }
    const bundle = splitPemBundle(bundleText);
    const signerCert = bundle.find((pem) => matchesKey(pem, caKey));
    if (signerCert === undefined) {
      this.logger.warn({ secret: this.secretRef() }, "the webhook certificate Secret's ca.key matches no CA of ca.crt: making it again");
      return undefined;
    }
    const nextKey = text('ca-next.key');
    const nextCert = nextKey === undefined ? undefined : bundle.find((pem) => matchesKey(pem, nextKey));
    const annotations = secret.metadata?.annotations ?? {};
    const time = (key: string): number | undefined => {
      const value = annotations[key] === undefined ? NaN : Date.parse(annotations[key]);
      return Number.isNaN(value) ? undefined : value;
    };
    return {
      serving: { cert: servingCert, key: servingKey },
      bundle,
      signer: { cert: signerCert, key: caKey },
      ...(nextKey === undefined || nextCert === undefined
        ? {}
        : { next: { cert: nextCert, key: nextKey }, promoteAt: time(PROMOTE_AT) ?? 0 }),
      ...(time(RETIRE_AT) === undefined ? {} : { retireAt: time(RETIRE_AT) }),
    };
  }

  private toSecret(state: State, stored: SecretObject | undefined): SecretObject {
    const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
    const annotations: Record<string, string> = { ...stored?.metadata?.annotations };
    delete annotations[PROMOTE_AT];
    delete annotations[RETIRE_AT];
    if (state.next !== undefined) annotations[PROMOTE_AT] = new Date(state.promoteAt ?? 0).toISOString();
    if (state.retireAt !== undefined) annotations[RETIRE_AT] = new Date(state.retireAt).toISOString();
    return {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'kubernetes.io/tls',
      metadata: {
        ...stored?.metadata,
        name: this.options.secretName,
        namespace: this.options.namespace,
        labels: { ...stored?.metadata?.labels, 'app.kubernetes.io/managed-by': this.fieldManager },
        annotations,
      },
      data: {
        'tls.crt': base64(state.serving.cert),
        'tls.key': base64(state.serving.key),
        'ca.crt': base64(state.bundle.join('')),
        'ca.key': base64(state.signer.key),
        ...(state.next === undefined ? {} : { 'ca-next.key': base64(state.next.key) }),
      },
    };
  }

  private secretRef(): string {
    return `${this.options.namespace}/${this.options.secretName}`;
  }
}

function describeChange(before: State | undefined, after: State): Record<string, unknown> {
  if (before === undefined) return { change: 'created' };
  return {
    servingRenewed: before.serving.cert !== after.serving.cert,
    caBundleSize: after.bundle.length,
    caReplacement: after.next !== undefined ? 'new CA trusted' : after.retireAt !== undefined ? 'new CA signing' : 'none',
  };
}

/** Options of {@link keepConversionCaBundle}. */
export interface ConversionCaBundleOptions {
  /** A client allowed to patch the CRD. */
  readonly client: KubeClient;
  /** The CRD's name (`<plural>.<group>`); its conversion must be `Webhook`. */
  readonly crdName: string;
  /** Where the bundle comes from: a started {@link SelfManagedCertificates}. */
  readonly certificates: CertificateSource;
  /** The field manager of the patch. Default `protean-webhooks`. */
  readonly fieldManager?: string;
  /** Aborts the patches (the first, and those after a change). */
  readonly signal?: AbortSignal;
}

const CRDS = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' } as const;

/**
 * Writes the CA bundle of `certificates` into the CRD's
 * `spec.conversion.webhook.clientConfig.caBundle` (a JSON merge patch of
 * that field alone), now and after every change of the bundle. Resolves,
 * once the first patch is stored, with a function that stops it.
 */
export async function keepConversionCaBundle(options: ConversionCaBundleOptions): Promise<() => void> {
  const { client, crdName, certificates, signal } = options;
  let written: string | undefined;
  const write = async (caPem: string): Promise<void> => {
    if (caPem === written) return;
    await client.patch(
      CRDS,
      { name: crdName },
      { spec: { conversion: { webhook: { clientConfig: { caBundle: Buffer.from(caPem).toString('base64') } } } } },
      { fieldManager: options.fieldManager ?? 'protean-webhooks', precondition: false, ...(signal === undefined ? {} : { signal }) },
    );
    written = caPem;
  };
  const first = certificates.current();
  if (first === undefined) throw new Error(`keepConversionCaBundle ${crdName}: the certificates are not started`);
  await write(first.caPem);
  const stop = certificates.onChange((c) => write(c.caPem));
  signal?.addEventListener('abort', stop, { once: true });
  return stop;
}
