import { gvrKey, type DynamicController } from '@protean/core';
import { APP_LABEL, configMapData, configMapName } from './webAppConfigMap.js';
import type { InformerCountProbe } from './InformerCountProbe.js';
import type { ParentKind } from './kinds.js';
import type { Ref } from './instanceKey.js';
import type { ScenarioApi } from './ScenarioApi.js';
import type { WebAppSpec } from './WebAppObject.js';

/**
 * A state the scenario waits for: `check` returns `true` once it holds, or
 * a short description of what it saw instead (printed if the wait times out).
 */
export interface Expectation {
  readonly what: string;
  check(): Promise<true | string> | true | string;
}

/** What a converged instance looks like. */
export interface ConvergedState {
  readonly spec: WebAppSpec;
  /** ConfigMaps labelled `app=<instance>` in its namespace. */
  readonly count: number;
  /** The instance's `metadata.generation`, when the step knows it. */
  readonly generation?: number;
}

/**
 * The instance is Ready with `status.observedGeneration` equal to its
 * generation and the expected count, and its ConfigMap carries the spec's
 * data and the `app=<instance>` label.
 */
export function converged(api: ScenarioApi, kind: ParentKind, ref: Ref, want: ConvergedState): Expectation {
  const at = `${kind.singular} ${ref.namespace}/${ref.name}`;
  const gen = want.generation === undefined ? '' : `, generation ${want.generation}`;
  return {
    what: `${at} converged (count=${want.count}${gen})`,
    async check() {
      const obj = await api.readInstance(kind, ref);
      if (obj === undefined) return `${at} does not exist`;
      const generation = obj.metadata.generation;
      if (want.generation !== undefined && generation !== want.generation) return `generation ${generation}`;
      const status = obj.status ?? {};
      if (status.observedGeneration !== generation)
        return `status.observedGeneration=${status.observedGeneration} (generation ${generation})`;
      const ready = status.conditions?.find((c) => c.type === 'Ready');
      if (ready?.status !== 'True') return `Ready=${ready?.status ?? 'absent'} ${ready?.message ?? ''}`.trim();
      if (status.configMapCount !== want.count) return `status.configMapCount=${status.configMapCount}`;
      const cmRef = { namespace: ref.namespace, name: configMapName(ref.name) };
      const cm = await api.readConfigMap(cmRef);
      if (cm === undefined) return `configmap ${cmRef.name} does not exist`;
      if (cm.metadata?.labels?.[APP_LABEL] !== ref.name) return `configmap ${cmRef.name} labels ${JSON.stringify(cm.metadata?.labels)}`;
      const data = configMapData(want.spec);
      const same = Object.keys(data).every((k) => cm.data?.[k] === data[k]);
      return same || `configmap ${cmRef.name} data ${JSON.stringify(cm.data)}`;
    },
  };
}

/** The ConfigMap exists again, as a new object (another uid). */
export function recreated(api: ScenarioApi, ref: Ref, oldUid: string | undefined): Expectation {
  return {
    what: `configmap ${ref.namespace}/${ref.name} recreated`,
    async check() {
      const cm = await api.readConfigMap(ref);
      if (cm === undefined) return 'absent';
      return cm.metadata?.uid !== oldUid || `still the old object (uid ${oldUid})`;
    },
  };
}

/** Exactly `count` informers run. */
export function informersRunning(probe: InformerCountProbe, count: number): Expectation {
  return {
    what: `${count} informer(s) running`,
    check: () => probe.count() === count || `${probe.count()} running: ${probe.gvrs().join(', ')}`,
  };
}

/** Exactly these parent kinds are registered. */
export function registeredKinds(controller: DynamicController, kinds: readonly ParentKind[]): Expectation {
  const want = kinds.map((k) => gvrKey(k.gvr)).sort();
  return {
    what: `registered kinds: ${kinds.map((k) => k.kind).join(', ') || 'none'}`,
    check() {
      const got = controller.registeredGVRs().map(gvrKey).sort();
      return got.join() === want.join() || `registered: ${got.join(', ') || 'none'}`;
    },
  };
}

/** Exactly `count` instances hold child watches in the coordinator. */
export function instancesWatching(controller: DynamicController, count: number): Expectation {
  return {
    what: `${count} instance(s) hold child watches`,
    check() {
      const n = controller.watchCoordinator().instanceWatchCount();
      return n === count || `${n} instance(s)`;
    },
  };
}

/**
 * The controller has nothing queued and no pass running, so every handler
 * call a change caused has finished (and printed its line).
 */
export function controllerIdle(controller: DynamicController): true | string {
  const { depth, inFlight } = controller.status().queue;
  return (depth === 0 && inFlight.length === 0) || `controller busy: ${depth} queued, ${inFlight.length} in flight`;
}
