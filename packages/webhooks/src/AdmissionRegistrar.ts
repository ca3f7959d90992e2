import type { KubeClient, KubeObject } from '@protean/client';
import { createLogger, type GroupVersionResource, type Logger, realClock, sleepOrWake } from '@protean/core';

/** How kube-apiserver reaches the webhook server: a URL, or a Service in the cluster; and the CA that signed it. */
export interface WebhookClientConfig {
  /** `https://host:port` of the server (the webhook's path is appended), or a Service. */
  readonly url?: string;
  readonly service?: { readonly namespace: string; readonly name: string; readonly port?: number };
  /** PEM of the CA that signed the serving certificate (sent base64-encoded as `caBundle`). */
  readonly caPem: string;
}

/** One webhook for one kind: which path serves it and how kube-apiserver calls it. */
export interface AdmissionWebhook {
  readonly type: 'validating' | 'mutating';
  /** The path `WebhookServer.validate` / `mutate` serves it at. */
  readonly path: string;
  /** Default `['CREATE', 'UPDATE']`. */
  readonly operations?: readonly ('CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT' | '*')[];
  /** Default `Fail`: a request is refused while the webhook cannot be reached. */
  readonly failurePolicy?: 'Fail' | 'Ignore';
  /** Default `None`. */
  readonly sideEffects?: 'None' | 'NoneOnDryRun';
  /** Default `Equivalent`. */
  readonly matchPolicy?: 'Exact' | 'Equivalent';
  readonly namespaceSelector?: Record<string, unknown>;
  readonly objectSelector?: Record<string, unknown>;
  /** 1 to 30; default 10. */
  readonly timeoutSeconds?: number;
  /** Mutating only; default `Never`. */
  readonly reinvocationPolicy?: 'Never' | 'IfNeeded';
}

/** Options of {@link AdmissionRegistrar}. */
export interface AdmissionRegistrarOptions {
  readonly client: KubeClient;
  /** The name of the ValidatingWebhookConfiguration and of the MutatingWebhookConfiguration it keeps. */
  readonly name: string;
  readonly clientConfig: WebhookClientConfig;
  /** The last segments of every webhook's name (`<resource>.<group>.<domain>`). Default `webhooks.protean.dev`. */
  readonly domain?: string;
  /** The field manager of its server-side applies. Default `protean-webhooks`. */
  readonly fieldManager?: string;
  /**
   * Whether this replica writes the configurations now. Every replica
   * records what is registered; only the one for which this is true
   * applies (the leader: `() => controller.isLeading()`; with shards, the
   * owner of the first range). Default: always (one replica).
   */
  readonly writes?: () => boolean;
  /** Where {@link AdmissionRegistrar.keepWritten} logs an apply that failed, when it is given no `onError`. */
  readonly logger?: Logger;
}

const ADMISSION = 'admissionregistration.k8s.io';
const CONFIGURATIONS = {
  validating: {
    gvr: { group: ADMISSION, version: 'v1', resource: 'validatingwebhookconfigurations' },
    kind: 'ValidatingWebhookConfiguration',
  },
  mutating: { gvr: { group: ADMISSION, version: 'v1', resource: 'mutatingwebhookconfigurations' }, kind: 'MutatingWebhookConfiguration' },
} as const;

/** A Validating or MutatingWebhookConfiguration as the registrar applies it. */
export type WebhookConfiguration = KubeObject & { webhooks: Record<string, unknown>[] };

/** A webhook name, a resource or a path that kube-apiserver would refuse. */
export class AdmissionRegistrationError extends TypeError {
  override readonly name = 'AdmissionRegistrationError';
}

/**
 * Keeps a ValidatingWebhookConfiguration and a MutatingWebhookConfiguration
 * true to the kinds registered at run time: `register(gvr, webhooks)` adds
 * one webhook per entry, matching exactly that resource, and `deregister`
 * takes them out. Each change applies the whole configuration by
 * server-side apply under its own field manager (webhooks are a list keyed
 * by name, so entries other managers added are left alone), and resolves
 * once kube-apiserver stored it; the server enforces it as soon as its
 * informer sees it (within about a second).
 *
 * Easy to get wrong: run the registrar in one replica only (the leader, or
 * the owner of shard 0) while every replica serves the webhooks; and
 * register a kind after its CRD is served, or kube-apiserver stores a rule
 * for a resource that does not match anything yet.
 */
export class AdmissionRegistrar {
  private readonly registered = new Map<string, { gvr: GroupVersionResource; webhooks: readonly AdmissionWebhook[] }>();
  private readonly domain: string;
  private readonly fieldManager: string;
  /** Applies run one after another, each with the state at its start. */
  private chain: Promise<unknown> = Promise.resolve();
  /** The CA bundle applied as `caBundle`: `clientConfig.caPem`, then what {@link AdmissionRegistrar.setCaBundle} gave. */
  private caPem: string;
  /** The bundle the last successful apply carried: a failed apply leaves it behind, so the same bundle is tried again. */
  private appliedCaPem: string | undefined;
  private logger: Logger | undefined;

  constructor(private readonly options: AdmissionRegistrarOptions) {
    this.domain = options.domain ?? 'webhooks.protean.dev';
    this.fieldManager = options.fieldManager ?? 'protean-webhooks';
    this.caPem = options.clientConfig.caPem;
    const config = options.clientConfig;
    if ((config.url === undefined) === (config.service === undefined)) {
      throw new AdmissionRegistrationError('AdmissionRegistrar: clientConfig needs a url or a service (one of them)');
    }
    if (config.url !== undefined && !config.url.startsWith('https://')) {
      throw new AdmissionRegistrationError(`AdmissionRegistrar: kube-apiserver calls webhooks over HTTPS only, got ${config.url}`);
    }
  }

  /**
   * Keeps the configurations written until `signal` aborts: applies them
   * whenever this replica starts writing (`writes` turns true, e.g. on
   * taking the lead) and again every `resyncMs` (default 30 s) while it
   * writes, which also puts back a webhook someone edited or deleted.
   * A failed apply goes to `onError` (else it is logged at warn) and is tried at the next tick.
   */
  async keepWritten(
    signal: AbortSignal,
    options: { resyncMs?: number; checkMs?: number; onError?: (err: unknown) => void } = {},
  ): Promise<void> {
    const resyncMs = options.resyncMs ?? 30_000;
    const checkMs = options.checkMs ?? 1_000;
    let wrote = false;
    let last = 0;
    while (!signal.aborted) {
      const writes = this.writes();
      if (writes && (!wrote || Date.now() - last >= resyncMs)) {
        try {
          await this.applyAll(signal);
          last = Date.now();
          wrote = true;
        } catch (err) {
          if (signal.aborted) break;
          if (options.onError !== undefined) options.onError(err);
          else {
            this.logger ??= this.options.logger ?? createLogger({ name: 'protean-webhooks' });
            this.logger.warn({ err, name: this.options.name }, 'the webhook configurations were not written: trying again');
          }
        }
      } else if (!writes) wrote = false;
      await sleepOrWake(realClock, checkMs, signal).done;
    }
  }

  /** Adds (or replaces) the webhooks of `gvr` and applies both configurations (when this replica {@link AdmissionRegistrarOptions.writes | writes}). */
  register(gvr: GroupVersionResource, webhooks: readonly AdmissionWebhook[], signal?: AbortSignal): Promise<void> {
    const kinds = new Set<string>();
    for (const w of webhooks) {
      if (!w.path.startsWith('/')) throw new AdmissionRegistrationError(`webhook path ${JSON.stringify(w.path)} must start with "/"`);
      if (kinds.has(w.type)) throw new AdmissionRegistrationError(`${describe(gvr)} has two ${w.type} webhooks: give it one per type`);
      kinds.add(w.type);
    }
    this.registered.set(key(gvr), { gvr, webhooks });
    return this.applyAll(signal);
  }

  /** Takes the webhooks of `gvr` out of both configurations. */
  deregister(gvr: GroupVersionResource, signal?: AbortSignal): Promise<void> {
    if (!this.registered.delete(key(gvr))) return Promise.resolve();
    return this.applyAll(signal);
  }

  /**
   * Makes `caPem` every webhook's `caBundle` and, when it differs from the
   * one in use, applies both configurations again (when this replica
   * writes), resolving once stored: call it with each new bundle of
   * `SelfManagedCertificates` (its `onChange`).
   */
  setCaBundle(caPem: string, signal?: AbortSignal): Promise<void> {
    if (caPem === this.caPem && caPem === this.appliedCaPem) return Promise.resolve();
    this.caPem = caPem;
    return this.applyAll(signal);
  }

  /** The configuration objects as they are applied now (for a look, or a test). */
  configurations(): { validating: WebhookConfiguration; mutating: WebhookConfiguration } {
    return { validating: this.configuration('validating'), mutating: this.configuration('mutating') };
  }

  private writes(): boolean {
    return this.options.writes?.() ?? true;
  }

  private applyAll(signal: AbortSignal | undefined): Promise<void> {
    if (!this.writes()) return Promise.resolve();
    const run = this.chain.then(async () => {
      const bundle = this.caPem;
      for (const type of ['validating', 'mutating'] as const) {
        await this.options.client.apply(CONFIGURATIONS[type].gvr, this.configuration(type), {
          fieldManager: this.fieldManager,
          force: true,
          ...(signal === undefined ? {} : { signal }),
        });
      }
      this.appliedCaPem = bundle;
    });
    this.chain = run.catch(() => {});
    return run;
  }

  private configuration(type: 'validating' | 'mutating'): WebhookConfiguration {
    const entries = [...this.registered.values()].flatMap(({ gvr, webhooks }) =>
      webhooks.filter((w) => w.type === type).map((w) => this.webhook(gvr, w)),
    );
    return {
      apiVersion: `${ADMISSION}/v1`,
      kind: CONFIGURATIONS[type].kind,
      metadata: { name: this.options.name, labels: { 'app.kubernetes.io/managed-by': this.fieldManager } },
      webhooks: entries,
    } as WebhookConfiguration;
  }

  private webhook(gvr: GroupVersionResource, w: AdmissionWebhook): Record<string, unknown> {
    const config = this.options.clientConfig;
    const clientConfig =
      config.url !== undefined ? { url: `${config.url.replace(/\/$/, '')}${w.path}` } : { service: { ...config.service, path: w.path } };
    return {
      name: `${gvr.resource}.${gvr.group === '' ? 'core' : gvr.group}.${this.domain}`,
      clientConfig: { ...clientConfig, caBundle: Buffer.from(this.caPem).toString('base64') },
      rules: [
        {
          operations: [...(w.operations ?? ['CREATE', 'UPDATE'])],
          apiGroups: [gvr.group],
          apiVersions: [gvr.version],
          resources: [gvr.resource],
        },
      ],
      failurePolicy: w.failurePolicy ?? 'Fail',
      sideEffects: w.sideEffects ?? 'None',
      matchPolicy: w.matchPolicy ?? 'Equivalent',
      admissionReviewVersions: ['v1'],
      timeoutSeconds: w.timeoutSeconds ?? 10,
      ...(w.namespaceSelector === undefined ? {} : { namespaceSelector: w.namespaceSelector }),
      ...(w.objectSelector === undefined ? {} : { objectSelector: w.objectSelector }),
      ...(w.type === 'mutating' ? { reinvocationPolicy: w.reinvocationPolicy ?? 'Never' } : {}),
    };
  }
}

function key(gvr: GroupVersionResource): string {
  return `${gvr.group}/${gvr.version}/${gvr.resource}`;
}

function describe(gvr: GroupVersionResource): string {
  return gvr.group === '' ? gvr.resource : `${gvr.resource}.${gvr.group}`;
}
