import { errorMessage, type GroupVersionResource } from '@protean/core';
import { validateLabelKey, validateLabelValue, parseGvrKey, validateGroupVersionResource, validateNamespace } from '@protean/core/internal';
import { ExplainQueryError } from './ExplainQueryError.js';

/** The object `/statusz/explain` asks about, parsed from the query string. */
export interface ExplainQuery {
  readonly gvr: GroupVersionResource;
  /** `""` for a cluster-scoped object. */
  readonly namespace: string;
  readonly name: string;
  /** Unset: read the labels from the informer cache. */
  readonly labels?: Readonly<Record<string, string>>;
}

/**
 * Parses `gvr=group/version/resource&namespace=&name=&labels=k=v,k2=v2`.
 * `gvr` is `gvrKey`'s form, the core group empty (`/v1/configmaps`);
 * `namespace` may be omitted or empty for a cluster-scoped object.
 *
 * Easy to get wrong: an absent `labels` parameter means "read the labels
 * from the cache", while `labels=` (present, empty) means "an object with
 * no labels".
 */
export function parseExplainQuery(params: URLSearchParams): ExplainQuery {
  const gvrText = single(params, 'gvr');
  if (gvrText === undefined || gvrText === '') {
    throw new ExplainQueryError('gvr', 'parameter gvr is required: "group/version/resource", e.g. "/v1/configmaps"');
  }
  let gvr: GroupVersionResource;
  try {
    gvr = parseGvrKey(gvrText);
    validateGroupVersionResource(gvr);
  } catch (err) {
    throw new ExplainQueryError('gvr', `parameter gvr ${JSON.stringify(gvrText)} is not a GVR: ${errorMessage(err)}`, {
      cause: err,
    });
  }
  const namespace = single(params, 'namespace') ?? '';
  try {
    validateNamespace(namespace);
  } catch (err) {
    throw new ExplainQueryError('namespace', `parameter namespace: ${errorMessage(err)}`, { cause: err });
  }
  const name = single(params, 'name');
  if (name === undefined || name === '') throw new ExplainQueryError('name', 'parameter name is required');
  const labelsText = single(params, 'labels');
  return labelsText === undefined ? { gvr, namespace, name } : { gvr, namespace, name, labels: parseLabels(labelsText) };
}

function single(params: URLSearchParams, key: string): string | undefined {
  const all = params.getAll(key);
  if (all.length > 1) throw new ExplainQueryError(key, `parameter ${key} is given ${all.length} times; give it once`);
  return all[0];
}

/** `k=v,k2=v2` (label values cannot hold `,` or `=`, so the split is exact); `""` is no labels. */
function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  if (text.trim() === '') return labels;
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    const eq = entry.indexOf('=');
    if (eq < 0) {
      throw new ExplainQueryError('labels', `parameter labels: ${JSON.stringify(entry)} is not key=value (labels are "k=v,k2=v2")`);
    }
    const key = entry.slice(0, eq).trim();
    const value = entry.slice(eq + 1).trim();
    const keyProblem = validateLabelKey(key);
    if (keyProblem !== undefined) throw new ExplainQueryError('labels', `parameter labels: key ${JSON.stringify(key)} ${keyProblem}`);
    const valueProblem = validateLabelValue(value);
    if (valueProblem !== undefined) {
      throw new ExplainQueryError('labels', `parameter labels: value ${JSON.stringify(value)} of ${key} ${valueProblem}`);
    }
    if (Object.hasOwn(labels, key)) throw new ExplainQueryError('labels', `parameter labels: key ${JSON.stringify(key)} is given twice`);
    labels[key] = value;
  }
  return labels;
}
