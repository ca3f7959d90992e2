import { isIP } from 'node:net';

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID_VERSION = (v: number): RegExp =>
  new RegExp(
    `^[0-9a-f]{8}-[0-9a-f]{4}-${v}[0-9a-f]{3}-${v === 3 || v === 5 ? '' : '[89ab]'}[0-9a-f]{${v === 3 || v === 5 ? 4 : 3}}-[0-9a-f]{12}$`,
    'i',
  );
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$/;
/** Go's `time.ParseDuration`, or the units go-openapi's duration format also accepts (`3 days`, `1w`). */
const GO_DURATION = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$|^0$/;
const WORDY_DURATION =
  /^(\d+\s*(ns|nanoseconds?|us|µs|microseconds?|ms|milliseconds?|s|sec|seconds?|m|min|minutes?|h|hr|hours?|d|days?|w|wk|weeks?)\s*)+$/;
const MAC = /^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$|^([0-9a-f]{4}\.){2}[0-9a-f]{4}$|^([0-9a-f]{2}[:-]){7}[0-9a-f]{2}$/i;
const HOSTNAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;
const EMAIL = /^[^\s@]+@[^\s@]+$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function isCidr(value: string): boolean {
  const [ip, bits, ...rest] = value.split('/');
  if (rest.length > 0 || ip === undefined || bits === undefined || !/^\d+$/.test(bits)) return false;
  const family = isIP(ip);
  return family !== 0 && Number(bits) <= (family === 4 ? 32 : 128);
}

function isUri(value: string): boolean {
  try {
    return new URL(value).protocol !== '';
  } catch {
    return false;
  }
}

/**
 * The string formats kube-apiserver checks in CRD schemas, by name; a
 * format not named here is not checked (as there: unknown formats are
 * allowed and ignored).
 */
const FORMATS: Readonly<Record<string, (value: string) => boolean>> = {
  uuid: (v) => UUID.test(v),
  uuid3: (v) => UUID_VERSION(3).test(v),
  uuid4: (v) => UUID_VERSION(4).test(v),
  uuid5: (v) => UUID_VERSION(5).test(v),
  date: (v) => DATE.test(v) && !Number.isNaN(Date.parse(v)),
  'date-time': (v) => DATE_TIME.test(v),
  datetime: (v) => DATE_TIME.test(v),
  duration: (v) => GO_DURATION.test(v) || WORDY_DURATION.test(v),
  ipv4: (v) => isIP(v) === 4,
  ipv6: (v) => isIP(v) === 6,
  cidr: isCidr,
  mac: (v) => MAC.test(v),
  hostname: (v) => HOSTNAME.test(v),
  email: (v) => EMAIL.test(v),
  uri: isUri,
  byte: (v) => BASE64.test(v),
};

/** Whether `value` is of string `format` (true for a format kube-apiserver does not check). */
export function matchesFormat(format: string, value: string): boolean {
  const test = FORMATS[format];
  return test === undefined || test(value);
}
