import type { WatchCoordinator, WatchManager, WatchRoute } from '../contracts/index.js';
import { gvrKey, namespacedNameKey, type GroupVersionResource } from '../gvr.js';
import { validateGroupVersionResource, validateNamespace, validateObjectName } from '../gvrValidation.js';
import type { ExplainTarget, Explanation } from './ControllerStatus.js';
import { ExplainError } from './ExplainError.js';
import { validateLabelKey, validateLabelValue } from '../selector/validation.js';

/** What {@link explainRouting} reads. */
export interface ExplainSources {
  readonly watchManager: WatchManager;
  readonly watchCoordinator: WatchCoordinator;
  /** True when `gvr` is a registered parent (its events reconcile the instance they are about). */
  readonly isParent: (gvr: GroupVersionResource) => boolean;
}

/**
 * `DynamicController.explain`: the routes and misses of `target`, with the
 * parent route added when its GVR is a registered parent.
 */
export function explainRouting(s: ExplainSources, target: ExplainTarget): Explanation {
  if (target === null || typeof target !== 'object') {
    throw new TypeError(`DynamicController.explain: target must be an object { gvr, namespace?, name, labels? }, got ${String(target)}`);
  }
  validateGroupVersionResource(target.gvr);
  const namespace = target.namespace ?? '';
  validateNamespace(namespace);
  validateObjectName(target.name);
  const gvr: GroupVersionResource = { group: target.gvr.group, version: target.gvr.version, resource: target.gvr.resource };
  const key = gvrKey(gvr);
  const id = { namespace, name: target.name };
  const described = `${key} ${namespacedNameKey(id)}`;
  let labels: Readonly<Record<string, string>>;
  let source: 'given' | 'cache';
  if (target.labels !== undefined) {
    labels = copyLabels(target.labels, described);
    source = 'given';
  } else {
    const informer = s.watchManager.getInformer(gvr);
    if (informer === undefined) {
      throw new ExplainError('no-informer', described, `no informer runs for ${key}, so its labels cannot be read; pass labels`);
    }
    const obj = informer.get(id);
    if (obj === undefined) {
      throw new ExplainError('not-cached', described, `it is not in the ${key} informer's cache; pass labels`);
    }
    labels = { ...obj.metadata.labels };
    source = 'cache';
  }
  const explain = s.watchCoordinator.explain;
  if (explain === undefined) {
    throw new ExplainError('unsupported', described, 'the bound watch coordinator does not implement explain()');
  }
  const answer = explain.call(s.watchCoordinator, { gvr, namespace, name: target.name, labels });
  const routes: WatchRoute[] = [...answer.routes];
  // The parent route: a parent event reconciles the instance it is about, declared watches or not.
  if (s.isParent(gvr)) {
    routes.push({ parent: key, instance: namespacedNameKey(id), watch: { kind: 'parent', gvr: key, namespace, name: target.name } });
  }
  routes.sort(compareRoutes);
  return { object: { gvr: key, namespace, name: target.name, labels, source }, routes, misses: answer.misses };
}

function copyLabels(labels: unknown, described: string): Record<string, string> {
  if (labels === null || typeof labels !== 'object' || Array.isArray(labels)) {
    throw new TypeError(`DynamicController.explain(${described}): labels must be an object of strings, got ${String(labels)}`);
  }
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels)) {
    if (typeof v !== 'string') {
      throw new TypeError(`DynamicController.explain(${described}): label ${JSON.stringify(k)} must be a string, got ${typeof v}`);
    }
    // No object can carry such a label, so an answer for it would only mislead a test.
    const keyProblem = validateLabelKey(k);
    if (keyProblem !== undefined)
      throw new ExplainError('invalid-labels', described, `label key ${JSON.stringify(k)} is invalid: ${keyProblem}`);
    const valueProblem = validateLabelValue(v);
    if (valueProblem !== undefined) {
      throw new ExplainError(
        'invalid-labels',
        described,
        `label ${JSON.stringify(k)} has an invalid value ${JSON.stringify(v)}: ${valueProblem}`,
      );
    }
    out[k] = v;
  }
  return out;
}

function compareRoutes(a: WatchRoute, b: WatchRoute): number {
  return compare(a.parent, b.parent) || compare(a.instance, b.instance) || compare(watchOrder(a), watchOrder(b));
}

function watchOrder(r: WatchRoute): string {
  return r.watch.kind === 'parent' ? '' : `${r.watch.gvr}\u0000${r.watch.nodeId}\u0000${r.watch.committed ? 0 : 1}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
