import type { GroupVersionResource } from './gvr.js';

/*
 * Kubernetes' naming rules (k8s.io/apimachinery/pkg/util/validation and
 * .../api/validation/path), checked before a GVR, a namespace or a name
 * becomes part of a URL path. Without them `resource: 'namespaces/default/configmaps'`
 * is a different collection once the server decodes the path, and `'..'`
 * is a parent directory once the URL is normalised.
 */

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_MAX = 63;
const SUBDOMAIN_MAX = 253;

const LABEL_RULE = `lowercase letters, digits and '-', starting and ending with a letter or digit, at most ${LABEL_MAX} characters`;
const GROUP_RULE =
  `must be "" (the core group) or a DNS-1123 subdomain such as "apps" or "demo.protean.dev" ` +
  `(dot-separated parts of lowercase letters, digits and '-', each starting and ending with a letter or digit, at most ${SUBDOMAIN_MAX} characters)`;
const CORE_GROUP_RULE =
  'is not an API group: the core group (ConfigMaps, Secrets, Pods, Namespaces, ...; apiVersion "v1") is "" in a GroupVersionResource';
const VERSION_RULE =
  `must be a DNS-1035 label such as "v1" or "v1alpha1" ` +
  `(lowercase letters, digits and '-', starting with a letter and ending with a letter or digit, at most ${LABEL_MAX} characters)`;
const RESOURCE_RULE =
  `must be a lowercase plural resource name such as "configmaps", a DNS-1123 label (${LABEL_RULE}); ` +
  'a path, a subresource ("pods/status") or a kind ("ConfigMap") is not a resource';
const NAMESPACE_RULE = `must be a DNS-1123 label such as "default" (${LABEL_RULE})`;
const NAME_RULE = `must be a non-empty path segment: not "." or "..", and without "/" or "%"`;

/** The part of a {@link GroupVersionResource} that broke a naming rule. */
export type GroupVersionResourceField = 'group' | 'version' | 'resource';

/**
 * A {@link GroupVersionResource} that is not one the API server could
 * serve: not an object, a field that is not a string, or a field that
 * breaks Kubernetes' naming rules (see {@link validateGroupVersionResource}).
 * The message quotes the GVR and the offending field and value.
 *
 * Easy to get wrong: it extends `TypeError`, so code that catches bad
 * arguments as `TypeError` keeps working.
 */
export class InvalidGroupVersionResourceError extends TypeError {
  override readonly name = 'InvalidGroupVersionResourceError';
  /** The field that broke a rule; `undefined` when the GVR is not an object at all. */
  readonly field: GroupVersionResourceField | undefined;
  /** The offending value (the whole input when `field` is `undefined`). */
  readonly value: unknown;

  constructor(gvr: unknown, field: GroupVersionResourceField | undefined, value: unknown, problem: string) {
    const what = field === undefined ? problem : `${field} ${quote(value)} ${problem}`;
    super(`invalid GroupVersionResource ${describeGvr(gvr)}: ${what}`);
    this.field = field;
    this.value = value;
  }
}

/** The part of an object's identity that broke a naming rule. */
export type ObjectNameField = 'namespace' | 'name';

/**
 * A namespace or object name that cannot be a segment of an API path (see
 * {@link validateNamespace} and {@link validateObjectName}). The message
 * quotes the value.
 */
export class InvalidObjectNameError extends TypeError {
  override readonly name = 'InvalidObjectNameError';
  /** Whether the namespace or the name broke a rule. */
  readonly field: ObjectNameField;
  /** The offending value. */
  readonly value: unknown;

  constructor(field: ObjectNameField, value: unknown, problem: string) {
    super(`invalid ${field} ${quote(value)}: ${problem}`);
    this.field = field;
    this.value = value;
  }
}

/**
 * Throws an {@link InvalidGroupVersionResourceError} unless `gvr` is an
 * object whose fields follow Kubernetes' naming rules:
 *
 * - `group`: `""` (the core group) or a DNS-1123 subdomain (`apps`,
 *   `demo.protean.dev`), at most 253 characters; `"core"` is refused with
 *   a message saying the core group is `""`;
 * - `version`: a DNS-1035 label (`v1`, `v1alpha1`), at most 63 characters;
 * - `resource`: a DNS-1123 label (`configmaps`), at most 63 characters, so
 *   no `/`, no `.`, no upper case, not empty.
 *
 * Every layer that turns a GVR into a URL path calls this, so a bad GVR
 * is refused before anything starts.
 */
export function validateGroupVersionResource(gvr: unknown): asserts gvr is GroupVersionResource {
  if (gvr === null || typeof gvr !== 'object') {
    throw new InvalidGroupVersionResourceError(gvr, undefined, gvr, 'expected an object with string group, version and resource');
  }
  const { group, version, resource } = gvr as Record<string, unknown>;
  if (typeof group !== 'string')
    throw new InvalidGroupVersionResourceError(gvr, 'group', group, 'must be a string ("" for the core group)');
  if (group === 'core') {
    throw new InvalidGroupVersionResourceError(gvr, 'group', group, CORE_GROUP_RULE);
  }
  if (group !== '' && !(group.length <= SUBDOMAIN_MAX && DNS1123_SUBDOMAIN.test(group))) {
    throw new InvalidGroupVersionResourceError(gvr, 'group', group, GROUP_RULE);
  }
  if (typeof version !== 'string') throw new InvalidGroupVersionResourceError(gvr, 'version', version, 'must be a string');
  if (!(version.length <= LABEL_MAX && DNS1035_LABEL.test(version))) {
    throw new InvalidGroupVersionResourceError(gvr, 'version', version, VERSION_RULE);
  }
  if (typeof resource !== 'string') throw new InvalidGroupVersionResourceError(gvr, 'resource', resource, 'must be a string');
  if (!(resource.length <= LABEL_MAX && DNS1123_LABEL.test(resource))) {
    throw new InvalidGroupVersionResourceError(gvr, 'resource', resource, RESOURCE_RULE);
  }
}

/**
 * Throws an {@link InvalidObjectNameError} unless `namespace` is `""` (no
 * namespace: all namespaces, or a cluster-scoped resource) or a DNS-1123
 * label (`default`, `team-a`) of at most 63 characters.
 */
export function validateNamespace(namespace: unknown): asserts namespace is string {
  if (typeof namespace !== 'string') throw new InvalidObjectNameError('namespace', namespace, 'must be a string');
  if (namespace !== '' && !(namespace.length <= LABEL_MAX && DNS1123_LABEL.test(namespace))) {
    throw new InvalidObjectNameError('namespace', namespace, NAMESPACE_RULE);
  }
}

/**
 * Throws an {@link InvalidObjectNameError} unless `name` can be the name
 * segment of an API path, as the API server requires of every object
 * name: not empty, not `.` or `..`, and without `/` or `%`. (Most
 * resources have stricter rules of their own, which the server enforces.)
 */
export function validateObjectName(name: unknown): asserts name is string {
  if (typeof name !== 'string') throw new InvalidObjectNameError('name', name, 'must be a string');
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('%')) {
    throw new InvalidObjectNameError('name', name, NAME_RULE);
  }
}

function quote(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === undefined) return 'undefined';
  if (typeof value === 'bigint' || typeof value === 'symbol' || typeof value === 'function') return `(${typeof value})`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return `(${typeof value})`;
  }
}

/** The three fields only, so a GVR with extra or cyclic properties still prints. */
function describeGvr(gvr: unknown): string {
  if (gvr === null || typeof gvr !== 'object') return quote(gvr);
  const { group, version, resource } = gvr as Record<string, unknown>;
  return `{ group: ${quote(group)}, version: ${quote(version)}, resource: ${quote(resource)} }`;
}
