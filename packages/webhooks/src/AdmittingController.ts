import { createLogger, type GroupVersionResource, type Handler, type Logger, type RegisterOptions } from '@protean/core';
import type { AdmissionRegistrar, AdmissionWebhook } from './AdmissionRegistrar.js';
import type { AdmissionRequest, MutationResult, ReviewObject, ValidationResult } from './reviews.js';
import type { MutatingHandler, ValidatingHandler, WebhookServer } from './WebhookServer.js';

/**
 * The admission a parent kind is registered with: a validating and/or a
 * mutating handler, and how kube-apiserver calls them (the same for both).
 * The handlers are typed with the kind's object (`AdmissionOptions<Widget>`);
 * they are declared as methods so such options are taken where the object
 * type is left open.
 */
export interface AdmissionOptions<T extends ReviewObject = ReviewObject> extends Omit<AdmissionWebhook, 'type' | 'path'> {
  /** Allows or denies a write of the kind (a validating webhook); `signal` aborts at the server's handler timeout. */
  validate?(request: AdmissionRequest<T>, signal: AbortSignal): ValidationResult | Promise<ValidationResult>;
  /** Returns the object as it should be stored (a mutating webhook, called before every validating one). */
  mutate?(request: AdmissionRequest<T>, signal: AbortSignal): MutationResult<T> | Promise<MutationResult<T>>;
}

/** `DynamicController.register`'s options, and the kind's admission. */
export interface AdmittingRegisterOptions<T extends ReviewObject = ReviewObject> extends RegisterOptions {
  readonly admission?: AdmissionOptions<T>;
}

/** The part of a `DynamicController` an {@link AdmittingController} drives. */
export interface RegisteringController {
  register(parent: GroupVersionResource, handler: Handler, options?: RegisterOptions): Promise<void>;
  deregister(parent: GroupVersionResource): Promise<void>;
}

/** Options of {@link AdmittingController}. */
export interface AdmittingControllerOptions {
  readonly controller: RegisteringController;
  /** Serves every kind's webhooks, on every replica. */
  readonly server: WebhookServer;
  /**
   * Writes the configurations; give it `writes` (e.g. `() => controller.isLeading()`)
   * when several replicas run, so that one writes.
   */
  readonly registrar: AdmissionRegistrar;
  readonly logger?: Logger;
}

/** A kind registered with admission, or a path served, that cannot be. */
export class AdmissionConfigError extends TypeError {
  override readonly name = 'AdmissionConfigError';
}

/**
 * A dynamic controller whose kinds bring their admission with them:
 * `register(parent, handler, { admission: { validate, mutate } })` serves
 * the handlers on the webhook server, registers the parent with the
 * controller, then adds the kind to the webhook configurations (so
 * kube-apiserver calls a path only once it is served); `deregister` takes
 * the kind out of the configurations first, then out of the controller.
 *
 * The webhook paths are `/validate/<group|core>/<version>/<resource>` and
 * `/mutate/...`. A path whose kind was deregistered keeps answering
 * `allowed` (kube-apiserver may call it until it sees the configuration
 * change), so a deregistered kind never has its writes refused for a
 * missing webhook.
 *
 * Easy to get wrong: every replica runs one (each serves the webhooks),
 * and only the registrar's `writes` decides which one writes the
 * configurations; run `registrar.keepWritten(signal)` beside the
 * controller so a replica that takes the lead writes them at once.
 */
export class AdmittingController {
  private readonly handlers = new Map<string, ValidatingHandler | MutatingHandler>();
  private readonly served = new Set<string>();
  /** Per kind, the last register/deregister call: the next one waits for it. */
  private readonly turns = new Map<string, Promise<void>>();
  private readonly logger: Logger;

  constructor(private readonly options: AdmittingControllerOptions) {
    this.logger = options.logger ?? createLogger({ name: 'protean-webhooks' });
  }

  /**
   * Registers `parent` with the controller, and its admission with the server and the configurations. Calls for
   * one kind run one after another (a `deregister` waits for the `register` before it).
   */
  register<T extends ReviewObject = ReviewObject>(
    parent: GroupVersionResource,
    handler: Handler,
    options: AdmittingRegisterOptions<T> = {},
  ): Promise<void> {
    return this.inTurn(parent, () => this.registerNow(parent, handler, options as AdmittingRegisterOptions));
  }

  /** Takes `parent`'s webhooks out of the configurations, then deregisters it. */
  deregister(parent: GroupVersionResource): Promise<void> {
    return this.inTurn(parent, async () => {
      await this.options.registrar.deregister(parent);
      await this.options.controller.deregister(parent);
      for (const type of ['validate', 'mutate'] as const) this.handlers.delete(pathOf(type, parent));
    });
  }

  private async registerNow(parent: GroupVersionResource, handler: Handler, options: AdmittingRegisterOptions): Promise<void> {
    const { admission, ...rest } = options;
    // Checked before anything changes: a refused admission leaves the kind as it was.
    const planned = admission === undefined ? [] : this.plan(parent, admission);
    const paths = (['validate', 'mutate'] as const).map((type) => pathOf(type, parent));
    const previous = paths.map((path) => [path, this.handlers.get(path)] as const);
    for (const path of paths) this.handlers.delete(path);
    for (const { type, path, fn } of planned) {
      this.handlers.set(path, fn);
      this.route(type, path);
    }
    try {
      await this.options.controller.register(parent, handler, rest);
    } catch (err) {
      // The configurations still name the kind's paths as before: so do the handlers (never a silent allow).
      for (const [path, fn] of previous) {
        if (fn === undefined) this.handlers.delete(path);
        else this.handlers.set(path, fn);
      }
      throw err;
    }
    const webhooks = planned.map((p) => p.webhook);
    if (webhooks.length > 0) await this.options.registrar.register(parent, webhooks);
    else await this.options.registrar.deregister(parent);
  }

  /** Runs `fn` after every earlier call for `parent` settled. */
  private inTurn(parent: GroupVersionResource, fn: () => Promise<void>): Promise<void> {
    const key = pathOf('validate', parent);
    const run = (this.turns.get(key) ?? Promise.resolve()).then(fn);
    const settled = run.catch(() => {});
    this.turns.set(key, settled);
    void settled.then(() => {
      if (this.turns.get(key) === settled) this.turns.delete(key);
    });
    return run;
  }

  /** The path kube-apiserver calls for `parent`'s validating or mutating webhook. */
  static pathOf(type: 'validating' | 'mutating', parent: GroupVersionResource): string {
    return pathOf(type === 'validating' ? 'validate' : 'mutate', parent);
  }

  /** The handlers and webhooks of an admission, checked; nothing is installed yet. */
  private plan(
    parent: GroupVersionResource,
    admission: AdmissionOptions,
  ): { type: 'validate' | 'mutate'; path: string; fn: ValidatingHandler | MutatingHandler; webhook: AdmissionWebhook }[] {
    const { validate: _validate, mutate: _mutate, ...how } = admission;
    // Bound: the handlers may be methods of an object of the caller's.
    const validate: ValidatingHandler | undefined = admission.validate?.bind(admission);
    const mutate: MutatingHandler | undefined = admission.mutate?.bind(admission);
    if (validate === undefined && mutate === undefined) {
      throw new AdmissionConfigError(`register ${describe(parent)}: admission needs validate, mutate or both`);
    }
    const planned: { type: 'validate' | 'mutate'; path: string; fn: ValidatingHandler | MutatingHandler; webhook: AdmissionWebhook }[] = [];
    for (const [type, fn] of [
      ['validate', validate],
      ['mutate', mutate],
    ] as const) {
      if (fn === undefined) continue;
      const path = pathOf(type, parent);
      planned.push({ type, path, fn, webhook: { ...how, type: type === 'validate' ? 'validating' : 'mutating', path } });
    }
    return planned;
  }

  /** Routes `path` once; the route looks its handler up per review, and allows when none is registered. */
  private route(type: 'validate' | 'mutate', path: string): void {
    if (this.served.has(path)) return;
    this.served.add(path);
    const server = this.options.server;
    if (type === 'validate') {
      server.validate(path, (request, signal) => {
        const fn = this.handlers.get(path) as ValidatingHandler | undefined;
        return fn === undefined ? { allowed: true } : fn(request, signal);
      });
    } else {
      server.mutate(path, (request, signal) => {
        const fn = this.handlers.get(path) as MutatingHandler | undefined;
        return fn === undefined ? { allowed: true } : fn(request, signal);
      });
    }
    this.logger.debug({ path }, 'webhook path served');
  }
}

function pathOf(type: 'validate' | 'mutate', gvr: GroupVersionResource): string {
  return `/${type}/${gvr.group === '' ? 'core' : gvr.group}/${gvr.version}/${gvr.resource}`;
}

function describe(gvr: GroupVersionResource): string {
  return gvr.group === '' ? `${gvr.resource} (${gvr.version})` : `${gvr.resource}.${gvr.group} (${gvr.version})`;
}
