import type { GroupVersionResource } from '@protean/core';

/**
 * A pattern of GVRs: `group/version/resource` as `gvrKey` writes it (the
 * core group empty: `/v1/configmaps`), where any segment may be `*`
 * (`apps/v1/*`: every resource of apps/v1); or an object whose missing or
 * `*` fields match anything (`{ group: 'demo.protean.dev' }`: every
 * resource of the group, in every version).
 */
export type GvrPattern = string | { readonly group?: string; readonly version?: string; readonly resource?: string };

interface CompiledPattern {
  readonly group: string | undefined;
  readonly version: string | undefined;
  readonly resource: string | undefined;
}

const SEGMENT = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/**
 * The GVRs a watch manager may start informers for: `allowedResources`
 * compiled once. A GVR is allowed when some pattern matches it.
 */
export class ResourceAllowList {
  private readonly compiled: readonly CompiledPattern[];
  /** The patterns as given, for error messages. */
  readonly patterns: readonly string[];

  /** Throws a `TypeError` naming the first pattern that is not a GVR pattern. */
  constructor(patterns: readonly GvrPattern[]) {
    if (!Array.isArray(patterns)) throw new TypeError(`allowedResources must be a list of GVR patterns, got ${JSON.stringify(patterns)}`);
    this.compiled = patterns.map((p, i) => compile(p, i));
    this.patterns = this.compiled.map((c) => `${c.group ?? '*'}/${c.version ?? '*'}/${c.resource ?? '*'}`);
  }

  /** Whether some pattern matches `gvr`. */
  allows(gvr: GroupVersionResource): boolean {
    return this.compiled.some(
      (c) =>
        (c.group === undefined || c.group === gvr.group) &&
        (c.version === undefined || c.version === gvr.version) &&
        (c.resource === undefined || c.resource === gvr.resource),
    );
  }
}

/** Lists compiled already, by the patterns they were compiled from. */
const compiledLists = new WeakMap<readonly GvrPattern[], ResourceAllowList>();

/**
 * `patterns` compiled (and so checked) once: `watchManagerModule` compiles
 * them when it is built, and every watch manager it builds reuses that list.
 * Throws as the constructor does.
 */
export function allowListOf(patterns: readonly GvrPattern[]): ResourceAllowList {
  const known = Array.isArray(patterns) ? compiledLists.get(patterns) : undefined;
  if (known !== undefined) return known;
  const list = new ResourceAllowList(patterns);
  compiledLists.set(patterns, list);
  return list;
}

function compile(pattern: GvrPattern, index: number): CompiledPattern {
  const bad = (why: string): TypeError =>
    new TypeError(
      `allowedResources[${index}]: ${JSON.stringify(pattern)} is not a GVR pattern: ${why} (expected "group/version/resource" with * for any segment, e.g. "apps/v1/deployments", "/v1/configmaps" for the core group, "demo.protean.dev/*/*")`,
    );
  let parts: [string, string, string];
  if (typeof pattern === 'string') {
    const split = pattern.split('/');
    if (split.length !== 3) throw bad(`it has ${split.length} segment(s)`);
    parts = split as [string, string, string];
  } else if (typeof pattern === 'object' && pattern !== null) {
    const field = (name: 'group' | 'version' | 'resource'): string => {
      const v = pattern[name];
      if (v === undefined) return '*';
      if (typeof v !== 'string') throw bad(`${name} is not a string`);
      return v;
    };
    parts = [field('group'), field('version'), field('resource')];
  } else throw bad(`it is a ${typeof pattern}`);
  const [group, version, resource] = parts;
  const segment = (value: string, name: string, emptyAllowed: boolean): string | undefined => {
    if (value === '*') return undefined;
    if (value === '' && emptyAllowed) return '';
    if (!SEGMENT.test(value)) throw bad(`${name} ${JSON.stringify(value)} is neither * nor a valid name`);
    return value;
  };
  return {
    group: segment(group, 'group', true),
    version: segment(version, 'version', false),
    resource: segment(resource, 'resource', false),
  };
}
