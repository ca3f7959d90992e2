// The {{kind}} kind's admission (`--webhooks`): a defaulting and a validating webhook, registered with the kind
// (src/app.ts) and served by every replica behind deploy/webhook-service.yaml. The certificate kube-apiserver
// checks is made and renewed by the controller itself, kept in the Secret WEBHOOK_SECRET (deploy/role-webhooks.yaml).
import { KubeClient } from '@protean/client';
import type { Logger } from '@protean/core';
import type { KubeConfigLike } from '@protean/transport';
import {
  AdmissionRegistrar,
  AdmittingController,
  type AdmissionOptions,
  type MutatingHandler,
  type RegisteringController,
  SelfManagedCertificates,
  type ValidatingHandler,
  WebhookServer,
} from '@protean/webhooks';
import type { Parent } from './kind.js';
import { CONTROLLER_NAME, WEBHOOK_SECRET, WEBHOOK_SERVICE } from './names.js';

/** What a {{kind}} gets when its spec leaves it out. */
export const DEFAULT_MESSAGE = 'hello';

/** Fills in what a {{kind}}'s spec leaves out (the mutating webhook: kube-apiserver stores what it returns). */
export const defaultParent: MutatingHandler<Parent> = (req) => {
  const object = req.object!;
  // A new object sharing what it leaves alone: the patch is computed from what changed.
  return { object: { ...object, spec: { ...object.spec, message: object.spec?.message ?? DEFAULT_MESSAGE } } };
};

/** Refuses a {{kind}} the CRD's schema and CEL rules let through (the validating webhook, after every mutation). */
export const validateParent: ValidatingHandler<Parent> = (req) => {
  const message = req.object?.spec?.message ?? '';
  if (message !== message.trim()) {
    return { allowed: false, code: 422, reason: 'Invalid', message: 'spec.message: must not start or end with spaces' };
  }
  return { allowed: true };
};

/**
 * The admission of the parent kind: kube-apiserver calls `mutate`, then `validate`, on every create and update.
 * Put here what the CRD's schema and CEL rules cannot say (src/kind.ts holds those).
 */
export const PARENT_ADMISSION: AdmissionOptions<Parent> = {
  mutate: defaultParent,
  validate: validateParent,
  operations: ['CREATE', 'UPDATE'],
  // Refuse writes while no replica answers: a {{kind}} is never stored unchecked.
  failurePolicy: 'Fail',
  timeoutSeconds: 10,
};

/** Where the webhook server listens, and how kube-apiserver reaches it. */
export interface WebhookServing {
  /** Default 9443 (deploy/webhook-service.yaml's target); 0: any free port. */
  readonly port?: number;
  /** Default `0.0.0.0`. */
  readonly host?: string;
  /**
   * `service` (default): through deploy/webhook-service.yaml, as in a cluster. `self`: at the server's own
   * URL, for an API server on this machine (the tests' in-memory one, or kube-apiserver from @protean/envtest).
   */
  readonly reachAt?: 'service' | 'self';
}

/** Options of {@link createWebhooks}. */
export interface WebhooksOptions extends WebhookServing {
  readonly kubeConfig: KubeConfigLike;
  readonly logger: Logger;
  /** The controller's namespace: where the Service and the certificate's Secret are. */
  readonly namespace: string;
  /** Whether this replica writes the webhook configurations now (the leader, or the first shard's owner). */
  readonly writes: () => boolean;
}

/** The webhook server (every replica) and how to start it with the controller. */
export interface Webhooks {
  readonly server: WebhookServer;
  /**
   * Loads (or makes) the certificate, listens, and keeps the webhook configurations written while this replica
   * writes; resolves with the controller whose `register` takes `{ admission }`. Stops on `signal`.
   */
  start(controller: RegisteringController, signal: AbortSignal): Promise<AdmittingController>;
}

/** The webhook server of this replica, its certificate kept in the Secret shared by every replica. */
export function createWebhooks(options: WebhooksOptions): Webhooks {
  const { kubeConfig, logger, namespace } = options;
  const self = options.reachAt === 'self';
  const client = new KubeClient({ kubeConfig, fieldManager: CONTROLLER_NAME });
  const certificates = new SelfManagedCertificates({
    client,
    namespace,
    secretName: WEBHOOK_SECRET,
    // The names kube-apiserver calls: the Service's, or this machine's address.
    ...(self ? { ipAddresses: ['127.0.0.1'] } : { dnsNames: [`${WEBHOOK_SERVICE}.${namespace}.svc`] }),
    fieldManager: CONTROLLER_NAME,
    logger,
  });
  const server = new WebhookServer({
    tls: certificates,
    port: options.port ?? 9443,
    host: options.host ?? (self ? '127.0.0.1' : '0.0.0.0'),
    logger,
  });
  return {
    server,
    start: async (controller, signal) => {
      await certificates.start(signal);
      const url = await server.start();
      const registrar = new AdmissionRegistrar({
        client,
        name: CONTROLLER_NAME,
        clientConfig: self
          ? { url, caPem: certificates.caPem }
          : { service: { namespace, name: WEBHOOK_SERVICE, port: 443 }, caPem: certificates.caPem },
        fieldManager: CONTROLLER_NAME,
        writes: options.writes,
      });
      const stopWatching = certificates.onChange((c) => registrar.setCaBundle(c.caPem, signal));
      const writing = registrar.keepWritten(signal, {
        onError: (err) => logger.warn({ err }, 'the webhook configurations were not written: trying again'),
      });
      signal.addEventListener(
        'abort',
        () => {
          stopWatching();
          void writing.finally(() => server.stop().finally(() => client.close()));
        },
        { once: true },
      );
      return new AdmittingController({ controller, server, registrar, logger });
    },
  };
}
