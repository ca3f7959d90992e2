import { basename, resolve } from 'node:path';
import { InvalidOptionError } from './InvalidOptionError.js';
import { InvalidProjectNameError } from './InvalidProjectNameError.js';
import { isLayout, type Layout } from './Layout.js';
import { UnknownLayoutError } from './UnknownLayoutError.js';

/** What {@link generateProject} is asked for. Only `directory` is required. */
export interface GenerateOptions {
  /** Where the project goes: a new or empty directory. */
  readonly directory: string;
  /** The package and controller name; default the directory's base name. */
  readonly name?: string;
  /** Default `leader-election`. */
  readonly layout?: string;
  /** The API group of the parent resource; default `<name>.example.com`. */
  readonly group?: string;
  /** The parent resource's kind (PascalCase); default `Widget`. */
  readonly kind?: string;
  /** The version range of every `@protean/*` dependency; default `^<its version>` (`PROTEAN_VERSIONS`). */
  readonly proteanVersion?: string;
  /** The resource name (lowercase plural) of the kind; default an English plural of it (`policy` → `policies`). */
  readonly plural?: string;
  /**
   * A directory of packed `@protean/*` tarballs (`pnpm pack:all` in a checkout writes `packed/`): the project
   * installs them from its own `vendor/` instead of the registry, and its image is built from them.
   */
  readonly from?: string;
  /** Add a validating and a defaulting admission webhook for the parent kind (`@protean/webhooks`). Default false. */
  readonly webhooks?: boolean;
}

/** The validated names a project is generated with: the values of the templates' placeholders. */
export interface ResolvedProject {
  readonly directory: string;
  readonly name: string;
  /** The controller's namespace in deploy/: the name. */
  readonly namespace: string;
  readonly layout: Layout;
  readonly group: string;
  readonly kind: string;
  /** Lowercase plural of the kind, the resource name (`widgets`). */
  readonly plural: string;
  /** Lowercase kind (`widget`). */
  readonly singular: string;
  /** The range of every `@protean/*` dependency, or `undefined` for each package's own `^<version>`. */
  readonly proteanRange: string | undefined;
  /** The absolute directory of packed tarballs to vendor, or `undefined`: from the registry. */
  readonly from: string | undefined;
  /** Whether the project serves admission webhooks for its kind. */
  readonly webhooks: boolean;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const KIND = /^[A-Z][A-Za-z0-9]*$/;
const RANGE = /^[~^]?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;

/**
 * Validates `options` and fills in the defaults. Rejects with a named error
 * naming the option and value: {@link InvalidProjectNameError},
 * {@link UnknownLayoutError}, {@link InvalidOptionError}.
 */
export function resolveProject(options: GenerateOptions): ResolvedProject {
  const directory = resolve(options.directory);
  const name = options.name ?? basename(directory);
  checkName(name);
  const layout = options.layout ?? 'leader-election';
  if (!isLayout(layout)) throw new UnknownLayoutError(layout);
  const group = options.group ?? `${name}.example.com`;
  if (group.length > 253 || !DNS_SUBDOMAIN.test(group) || !group.includes('.'))
    throw new InvalidOptionError('group', group, 'an API group is a DNS subdomain with at least one dot, e.g. example.com');
  const kind = options.kind ?? 'Widget';
  if (!KIND.test(kind) || kind.length > 63)
    throw new InvalidOptionError('kind', kind, 'a kind is PascalCase letters and digits, starting with a capital, e.g. Widget');
  const singular = kind.toLowerCase();
  const proteanRange = options.proteanVersion;
  if (proteanRange !== undefined && !RANGE.test(proteanRange))
    throw new InvalidOptionError('protean-version', proteanRange, 'a version or a ^/~ range of one, e.g. ^0.1.0');
  const plural = options.plural ?? pluralOf(singular);
  if (!DNS_LABEL.test(plural) || plural.length > 63)
    throw new InvalidOptionError('plural', plural, 'a resource name is lowercase letters, digits and "-" (a DNS label), e.g. indices');
  if (plural === singular) throw new InvalidOptionError('plural', plural, `it must differ from the singular (${singular})`);
  const from = options.from === undefined ? undefined : resolve(options.from);
  if (from !== undefined && proteanRange !== undefined)
    throw new InvalidOptionError('from', options.from ?? '', '--from installs the packed versions: leave --protean-version out');
  const webhooks = options.webhooks ?? false;
  return { directory, name, namespace: name, layout, group, kind, plural, singular, proteanRange, from, webhooks };
}

function checkName(name: string): void {
  if (name.length === 0) throw new InvalidProjectNameError(name, 'the name is empty');
  if (name.length > 63) throw new InvalidProjectNameError(name, `at most 63 characters (a DNS label), got ${name.length}`);
  if (!DNS_LABEL.test(name))
    throw new InvalidProjectNameError(
      name,
      'lowercase letters, digits and "-", starting and ending with a letter or digit (an npm name and a DNS label)',
    );
}

/** English plural of a lowercase kind, as Kubernetes resources are named (`policy` → `policies`). */
export function pluralOf(singular: string): string {
  if (/[^aeiou]y$/.test(singular)) return `${singular.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(singular)) return `${singular}es`;
  return `${singular}s`;
}
