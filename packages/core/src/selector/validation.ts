/** Longest name part (after the optional prefix and "/") of a label key. */
export const LABEL_NAME_MAX_LENGTH = 63;
/** Longest DNS-1123 subdomain prefix of a label key. */
export const LABEL_PREFIX_MAX_LENGTH = 253;
/** Longest label value (same limit as a key's name part). */
export const LABEL_VALUE_MAX_LENGTH = 63;

const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const NAME_RULE = "alphanumerics, '-', '_' and '.', starting and ending with an alphanumeric";

/**
 * Checks a label key as Kubernetes does: an optional DNS-1123 subdomain
 * prefix (lowercase, at most 253 characters) and `/`, then a name of at most
 * 63 characters made of alphanumerics, `-`, `_` and `.`, starting and
 * ending with an alphanumeric.
 *
 * @returns what is wrong with `key`, or `undefined` when it is valid. It
 * returns rather than throws so each caller can say where the key came from.
 * Easy to get wrong: the prefix is lowercase-only, the name part is not.
 */
export function validateLabelKey(key: string): string | undefined {
  const slash = key.indexOf('/');
  let name = key;
  if (slash !== -1) {
    if (key.indexOf('/', slash + 1) !== -1) {
      return 'must be a name with an optional DNS subdomain prefix and one "/" (e.g. "example.com/my-name")';
    }
    const prefix = key.slice(0, slash);
    name = key.slice(slash + 1);
    if (prefix.length === 0) return 'prefix before "/" must not be empty';
    if (prefix.length > LABEL_PREFIX_MAX_LENGTH) {
      return `prefix must be at most ${LABEL_PREFIX_MAX_LENGTH} characters (has ${prefix.length})`;
    }
    if (!DNS_SUBDOMAIN.test(prefix)) {
      return "prefix must be a DNS-1123 subdomain: lowercase alphanumerics, '-' and '.', each dot-separated part starting and ending with an alphanumeric";
    }
  }
  if (name.length === 0) return 'name must not be empty';
  if (name.length > LABEL_NAME_MAX_LENGTH) {
    return `name must be at most ${LABEL_NAME_MAX_LENGTH} characters (has ${name.length})`;
  }
  if (!NAME.test(name)) return `name must consist of ${NAME_RULE}`;
  return undefined;
}

/**
 * Checks a label value as Kubernetes does: empty, or at most 63 characters
 * made of alphanumerics, `-`, `_` and `.`, starting and ending with an
 * alphanumeric.
 *
 * @returns what is wrong with `value`, or `undefined` when it is valid.
 * Easy to get wrong: the empty string is a valid value.
 */
export function validateLabelValue(value: string): string | undefined {
  if (value.length === 0) return undefined;
  if (value.length > LABEL_VALUE_MAX_LENGTH) {
    return `must be at most ${LABEL_VALUE_MAX_LENGTH} characters (has ${value.length})`;
  }
  if (!NAME.test(value)) return `must be empty or consist of ${NAME_RULE}`;
  return undefined;
}
