import { errorMessage, gvrKey, type WatchRequest } from '@protean/core';
import { validateGroupVersionResource, validateNamespace, validateObjectName } from '@protean/core/internal';
import { WatchRequestError } from './WatchRequestError.js';

/**
 * Checks a request before it reaches the indexes; throws a
 * {@link WatchRequestError} naming `instance`, the node and the problem.
 *
 * The GVR, a non-empty namespace and a name must follow Kubernetes'
 * naming rules (core's `validateGroupVersionResource`, `validateNamespace`
 * and `validateObjectName`), so a request for `resource: '..'` or
 * `'namespaces/default/configmaps'` never starts an informer.
 *
 * Easy to get wrong: an empty `name` counts as no name (Go's zero value),
 * and `Nothing` is a valid selector (the request is accepted and simply
 * never routes).
 */
export function validateWatchRequest(req: WatchRequest, instance: string): void {
  if (req === null || typeof req !== 'object') {
    throw new WatchRequestError(instance, '<none>', `expected a WatchRequest object, got ${String(req)}`);
  }
  const nodeId: unknown = req.nodeId;
  if (typeof nodeId !== 'string' || nodeId === '') {
    throw new WatchRequestError(instance, '<none>', `nodeId must be a non-empty string, got ${JSON.stringify(nodeId)}`);
  }
  const fail = (problem: string, cause?: unknown): never => {
    throw new WatchRequestError(instance, nodeId, problem, cause === undefined ? undefined : { cause });
  };
  /** Runs one of core's naming-rule checks; its error becomes the cause. */
  const check = (validate: () => void, where = ''): void => {
    try {
      validate();
    } catch (err) {
      fail(`${errorMessage(err)}${where}`, err);
    }
  };
  check(() => validateGroupVersionResource(req.gvr));
  const where = `on ${gvrKey(req.gvr)}`;
  const namespace: unknown = req.namespace;
  if (namespace !== undefined && typeof namespace !== 'string') {
    fail(`namespace must be a string ${where}, got ${JSON.stringify(namespace)}`);
  }
  if (namespace !== undefined) check(() => validateNamespace(namespace), ` ${where}`);
  const name: unknown = req.name;
  if (name !== undefined && typeof name !== 'string') fail(`name must be a string ${where}, got ${JSON.stringify(name)}`);
  const hasName = name !== undefined && name !== '';
  if (hasName) check(() => validateObjectName(name), ` ${where}`);
  const selector: unknown = req.selector;
  if (selector === undefined) {
    if (!hasName) fail(`neither a name (scalar watch) nor a selector (collection watch) ${where}`);
    return;
  }
  if (hasName) {
    fail(`both a name (${JSON.stringify(name)}) and a selector (${String(selector)}) ${where}; set exactly one`);
  }
  const s = selector as Record<string, unknown> | null;
  if (
    s === null ||
    typeof s !== 'object' ||
    typeof s['matches'] !== 'function' ||
    typeof s['requirements'] !== 'function' ||
    typeof s['matchesNothing'] !== 'function'
  ) {
    fail(`selector must be a Selector (from parseSelector or selectorFromLabelSelector) ${where}`);
  }
}
