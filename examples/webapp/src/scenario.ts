import type { KubeConfig } from '@kubernetes/client-node';
import type { DynamicController, Handler } from '@protean/core';
import { APP_LABEL, configMapName } from './webAppConfigMap.js';
import { ensureCrd } from './ensureCrd.js';
import {
  controllerIdle,
  converged,
  informersRunning,
  instancesWatching,
  recreated,
  registeredKinds,
  type Expectation,
} from './expectations.js';
import type { InformerCountProbe } from './InformerCountProbe.js';
import { WEBAPP, WEBSITE, type ParentKind } from './kinds.js';
import type { LatencyTracker } from './LatencyTracker.js';
import type { LiveLog } from './LiveLog.js';
import { pollUntil } from './pollUntil.js';
import { instanceKey, type Ref } from './instanceKey.js';
import { ScenarioApi } from './ScenarioApi.js';
import { webAppRegisterOptions } from './webappController.js';
import type { StepResult } from './summary.js';

/** What the scripted scenario drives and observes. */
export interface ScenarioDeps {
  readonly kubeConfig: KubeConfig;
  /** A started controller. */
  readonly controller: DynamicController;
  /** The handler registered for every parent kind. */
  readonly handler: Handler;
  readonly informers: InformerCountProbe;
  readonly latency: LatencyTracker;
  readonly log: LiveLog;
  /** Bounded wait of each step for all its expectations. */
  readonly stepTimeoutMs: number;
  readonly signal: AbortSignal;
}

/** One scripted step: a change, then the states it must lead to. */
interface Step {
  readonly name: string;
  act(): Promise<void>;
  /** Built after `act`, so it can use what `act` saw. */
  expect(): Expectation[];
}

/** The scenario's results: one per step run; it stops at the first failing step. */
export interface ScenarioResult {
  readonly steps: StepResult[];
  readonly planned: number;
}

const shop: Ref = { namespace: 'team-a', name: 'shop' };
const blog: Ref = { namespace: 'team-a', name: 'blog' };
const docs: Ref = { namespace: 'team-b', name: 'docs' };
const portal: Ref = { namespace: 'team-b', name: 'portal' };
const shopExtra: Ref = { namespace: 'team-a', name: 'shop-extra' };
const configOf = (ref: Ref): Ref => ({ namespace: ref.namespace, name: configMapName(ref.name) });

function steps(d: ScenarioDeps, api: ScenarioApi): Step[] {
  const key = (kind: ParentKind, ref: Ref): string => instanceKey(kind.gvr, ref);
  const define = async (kind: ParentKind): Promise<void> => {
    const outcome = await ensureCrd(d.kubeConfig, kind, { signal: d.signal, timeoutMs: d.stepTimeoutMs });
    d.log.line(`scenario: CRD ${kind.gvr.resource}.${kind.gvr.group} ${outcome}; the API server serves it`);
    await d.controller.register(kind.gvr, d.handler, webAppRegisterOptions(kind.gvr));
    d.log.line(`scenario: registered ${kind.kind} with the controller`);
  };
  const shopSpec = { message: 'Welcome to the shop', replicas: 2 };
  const blogSpec = { message: 'Hello from the blog', replicas: 1 };
  const docsSpec = { message: 'Read the docs', replicas: 1 };
  const saleSpec = { message: 'Spring sale: 20% off', replicas: 3 };
  const portalSpec = { message: 'One portal for everything', replicas: 2 };
  let oldShopConfigUid: string | undefined;

  return [
    {
      name: 'define WebApp and register it',
      act: () => define(WEBAPP),
      // webapps, and configmaps: the registration caches both as full objects (webAppRegisterOptions).
      expect: () => [registeredKinds(d.controller, [WEBAPP]), informersRunning(d.informers, 2)],
    },
    {
      name: 'create three WebApps',
      async act() {
        await api.createInstance(WEBAPP, shop, shopSpec);
        await api.createInstance(WEBAPP, blog, blogSpec);
        await api.createInstance(WEBAPP, docs, docsSpec);
      },
      expect: () => [
        converged(api, WEBAPP, shop, { spec: shopSpec, count: 1, generation: 1 }),
        converged(api, WEBAPP, blog, { spec: blogSpec, count: 1, generation: 1 }),
        converged(api, WEBAPP, docs, { spec: docsSpec, count: 1, generation: 1 }),
        informersRunning(d.informers, 2),
      ],
    },
    {
      name: 'delete a child ConfigMap',
      async act() {
        oldShopConfigUid = (await api.readConfigMap(configOf(shop)))?.metadata?.uid;
        await api.deleteConfigMap(configOf(shop), [key(WEBAPP, shop)]);
      },
      expect: () => [recreated(api, configOf(shop), oldShopConfigUid), converged(api, WEBAPP, shop, { spec: shopSpec, count: 1 })],
    },
    {
      name: 'add a ConfigMap labelled app=shop',
      act: () => api.createConfigMap(shopExtra, { [APP_LABEL]: 'shop' }, [key(WEBAPP, shop)]),
      expect: () => [converged(api, WEBAPP, shop, { spec: shopSpec, count: 2 })],
    },
    {
      name: 'relabel it from app=shop to app=blog',
      act: () => api.labelConfigMap(shopExtra, { [APP_LABEL]: 'blog' }, [key(WEBAPP, shop), key(WEBAPP, blog)]),
      expect: () => [
        converged(api, WEBAPP, shop, { spec: shopSpec, count: 1 }),
        converged(api, WEBAPP, blog, { spec: blogSpec, count: 2 }),
      ],
    },
    {
      name: 'relabel an owned ConfigMap away (app=somebody-else)',
      act: () => api.labelConfigMap(configOf(docs), { [APP_LABEL]: 'somebody-else' }, [key(WEBAPP, docs)]),
      expect: () => [converged(api, WEBAPP, docs, { spec: docsSpec, count: 1 })],
    },
    {
      name: 'change a spec',
      act: () => api.patchSpec(WEBAPP, shop, saleSpec),
      expect: () => [converged(api, WEBAPP, shop, { spec: saleSpec, count: 1, generation: 2 })],
    },
    {
      name: 'define WebSite and register it',
      act: () => define(WEBSITE),
      expect: () => [registeredKinds(d.controller, [WEBAPP, WEBSITE]), informersRunning(d.informers, 3)],
    },
    {
      name: 'create a WebSite',
      act: () => api.createInstance(WEBSITE, portal, portalSpec),
      expect: () => [converged(api, WEBSITE, portal, { spec: portalSpec, count: 1, generation: 1 }), instancesWatching(d.controller, 4)],
    },
    {
      name: 'deregister WebApp',
      async act() {
        await d.controller.deregister(WEBAPP.gvr);
        d.log.line('scenario: deregistered WebApp; its instances stay in the cluster, unreconciled');
      },
      // The webapps informer stops; configmaps stays, since the WebSite watches and caches ConfigMaps.
      expect: () => [registeredKinds(d.controller, [WEBSITE]), informersRunning(d.informers, 2), instancesWatching(d.controller, 1)],
    },
    {
      name: 'delete the WebSite',
      act: () => api.deleteInstance(WEBSITE, portal),
      // Its handler sees it gone and drops its watches; the configmaps informer stays, cached by the WebSite registration.
      expect: () => [instancesWatching(d.controller, 0), informersRunning(d.informers, 2)],
    },
    {
      name: 'check every WebApp is still converged',
      act: async () => {},
      expect: () => [
        converged(api, WEBAPP, shop, { spec: saleSpec, count: 1, generation: 2 }),
        converged(api, WEBAPP, blog, { spec: blogSpec, count: 2, generation: 1 }),
        converged(api, WEBAPP, docs, { spec: docsSpec, count: 1, generation: 1 }),
      ],
    },
  ];
}

/**
 * Runs the scripted scenario against a started controller: each step makes
 * its change through the API server, then waits (bounded by
 * `stepTimeoutMs`) until every expectation holds and the controller is
 * idle, so each `ok` follows the handler lines it rests on. Stops at the first step
 * that fails, recording which expectation failed and what was seen.
 */
export async function runScenario(d: ScenarioDeps): Promise<ScenarioResult> {
  const api = new ScenarioApi(d.kubeConfig, d.log, d.latency, d.signal);
  const all = steps(d, api);
  const results: StepResult[] = [];
  for (const [i, step] of all.entries()) {
    d.log.line(`--- step ${i + 1}/${all.length}: ${step.name}`);
    const startedMs = performance.now();
    const deadline = startedMs + d.stepTimeoutMs;
    let failure: string | undefined;
    try {
      await step.act();
      for (const e of step.expect()) {
        const timeoutMs = Math.max(1, deadline - performance.now());
        // An expectation can hold while the pass that brought it about is still running (a ConfigMap applied, a
        // deleted instance's watches dropped before its handler runs): print `ok` once that pass has printed its line.
        await pollUntil(
          e.what,
          async () => {
            const held = await e.check();
            return held === true ? controllerIdle(d.controller) : held;
          },
          { timeoutMs, signal: d.signal },
        );
        d.log.line(`    ok: ${e.what}`);
      }
    } catch (err) {
      failure = err instanceof Error ? err.message : String(err);
      d.log.line(`    FAILED: ${failure}`);
    }
    const result: StepResult = {
      name: step.name,
      ok: failure === undefined,
      elapsedMs: performance.now() - startedMs,
      activeInformers: d.informers.count(),
      ...(failure === undefined ? {} : { failure }),
    };
    results.push(result);
    if (!result.ok) break;
  }
  return { steps: results, planned: all.length };
}
