/** A watch line read by {@link fastParseWatchLine}: its type and its object's `metadata`, but for `managedFields`. */
export interface FastParsedLine {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';
  readonly metadata: unknown;
}

const TYPES = ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK'] as const;
/** What kube-apiserver writes before the metadata of each event type of a metadata-only watch. */
const PREFIXES = TYPES.map(
  (type) => `{"type":"${type}","object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":`,
);
const MANAGED_FIELDS = ',"managedFields":[';

/**
 * The fast path of watch-line decoding, for the lines kube-apiserver writes
 * for a metadata-only watch: `{"type":T,"object":{"kind":"PartialObjectMetadata",
 * "apiVersion":"meta.k8s.io/v1","metadata":M}}`. For such a line `JSON.parse`
 * of the whole line gives `metadata` = `JSON.parse(M)`, and M alone is
 * parsed: the wrapper's strings and objects are never built. The server
 * writes `managedFields` last in M, and it is often half of the line's
 * bytes; when M ends in `,"managedFields":V}`, V is checked to be valid
 * JSON without building it ({@link skipValue}) and M is parsed without that
 * member. That parse gives M's metadata but for `managedFields`: if `A}` is a
 * valid object (A being M up to that comma, and not ending in `{`) and V a
 * valid value, then `A,"managedFields":V}` is valid too, with the one more
 * member.
 *
 * Returns `undefined` whenever the line is not of that form (another
 * prefix, whitespace between tokens, an ERROR event, a full object) or the
 * parse fails: the caller then parses the whole line, which also gives the
 * error. Easy to get wrong: the search for `,"managedFields":[` runs past
 * `end` into the rest of the chunk; its result is kept and reused while the
 * lines move forward through the same text, so a chunk is searched once,
 * not once per line.
 */
export function fastParseWatchLine(s: string, start = 0, end = s.length): FastParsedLine | undefined {
  const type = typeIndex(s, start);
  if (type < 0) return undefined;
  const metaStart = start + (PREFIXES[type] as string).length;
  // The line ends with M, then '}}' (object, event), then optional whitespace.
  let e = end;
  while (e > metaStart && isWhitespace(s.charCodeAt(e - 1))) e--;
  if (e - metaStart < 4 || s.charCodeAt(e - 1) !== CLOSE_BRACE || s.charCodeAt(e - 2) !== CLOSE_BRACE) return undefined;
  const metadata = parseMetadata(s, metaStart, e - 2);
  return metadata === undefined ? undefined : { type: TYPES[type] as FastParsedLine['type'], metadata: metadata.value };
}

/** What kube-apiserver writes before the metadata of each item of a metadata-only LIST. */
export const LIST_ITEM_PREFIX = '{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":';

/**
 * The fast path for one element of a metadata-only LIST's `items`, as
 * kube-apiserver writes them: `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":M}`
 * (nothing around it): `metadata` = `JSON.parse(M)` but for `managedFields`,
 * read as {@link fastParseWatchLine} reads M. `undefined` whenever the item
 * is not of that form or the parse fails: the caller then parses it whole.
 */
export function fastParseListItem(s: string): { readonly metadata: unknown } | undefined {
  const end = s.length;
  if (
    end < LIST_ITEM_PREFIX.length + 3 ||
    s.charCodeAt(end - 1) !== CLOSE_BRACE ||
    s.slice(0, LIST_ITEM_PREFIX.length) !== LIST_ITEM_PREFIX
  )
    return undefined;
  const metadata = parseMetadata(s, LIST_ITEM_PREFIX.length, end - 1);
  return metadata === undefined ? undefined : { metadata: metadata.value };
}

/** `JSON.parse` of M (`s` from `metaStart` to `metaEnd`) but for a last member `managedFields`, or undefined if it fails. */
function parseMetadata(s: string, metaStart: number, metaEnd: number): { value: unknown } | undefined {
  let text: string | undefined;
  // M ends in ']}': perhaps with managedFields.
  if (s.charCodeAt(metaEnd - 1) === CLOSE_BRACE && s.charCodeAt(metaEnd - 2) === CLOSE_BRACKET) {
    const comma = nextMatch(managedFieldsSearch, s, metaStart);
    const value = comma + MANAGED_FIELDS.length - 1;
    if (comma > metaStart && comma < metaEnd && skipValue(s, value, metaEnd) === metaEnd - 1) {
      const before = s.charCodeAt(comma - 1);
      if (before !== OPEN_BRACE && !isWhitespace(before)) text = `${s.slice(metaStart, comma)}}`;
    }
  }
  try {
    return { value: JSON.parse(text ?? s.slice(metaStart, metaEnd)) };
  } catch {
    return undefined;
  }
}

/** Which of {@link PREFIXES} the line starts with, or -1. */
function typeIndex(s: string, start: number): number {
  // '{"type":"' is 9 characters; the type's first letter tells the candidates apart.
  let type: number;
  switch (s.charCodeAt(start + 9)) {
    case 65: // A
      type = 0;
      break;
    case 77: // M
      type = 1;
      break;
    case 68: // D
      type = 2;
      break;
    case 66: // B
      type = 3;
      break;
    default:
      return -1;
  }
  const prefix = PREFIXES[type] as string;
  // A slice and a comparison: several times cheaper here than startsWith with a long prefix.
  return s.slice(start, start + prefix.length) === prefix ? type : -1;
}

function isWhitespace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/** A search whose last result is kept: the first match of `pattern` at or after `from` in `text` (-1: none). */
interface Search {
  readonly pattern: string;
  text: string | undefined;
  from: number;
  at: number;
}

const managedFieldsSearch: Search = { pattern: MANAGED_FIELDS, text: undefined, from: 0, at: -1 };

/** The first match of the search's pattern at or after `from` in `s`, reusing the last result while it still answers. */
function nextMatch(search: Search, s: string, from: number): number {
  // The last search started at or before `from` and found nothing before its result: still the answer unless that is behind `from`.
  if (search.text !== s || from < search.from || (search.at >= 0 && search.at < from)) {
    search.text = s;
    search.from = from;
    search.at = s.indexOf(search.pattern, from);
  }
  return search.at;
}

// Character codes.
const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const MINUS = 45;
const PLUS = 43;
const DOT = 46;
const ZERO = 48;
const NINE = 57;
const LOWER_E = 101;
const UPPER_E = 69;
const LOWER_U = 117;

/** Deeper nesting than this in the skipped value gives up the fast path (JSON.parse has no such limit). */
const MAX_DEPTH = 30;

/** The character code at `i`, or -1 at or past the line's end `n` (the text may go on after it). */
function at(s: string, i: number, n: number): number {
  return i < n ? s.charCodeAt(i) : -1;
}

// The states of skipValue.
const VALUE = 0;
const ARRAY_FIRST = 1;
const OBJECT_FIRST = 2;
const KEY = 3;
const COLON_NEXT = 4;
const AFTER_VALUE = 5;

/** The key whose object values {@link skipValue} remembers: `managedFields[].fieldsV1`, most of the field's bytes. */
const FIELDS_V1_KEY = '"fieldsV1"';
/** How many `fieldsV1` values {@link skipValue} remembers, and the longest it does. */
const KNOWN_FIELDS = 8;
const KNOWN_FIELDS_CHARS = 4096;
/** `fieldsV1` objects validated lately (copies, not slices of the text they were in), replaced in turn. */
const knownFields: string[] = [];
let nextKnownField = 0;

/** The first of {@link knownFields} that `s` holds at `i`, ending before `n`, or undefined. */
function knownFieldsAt(s: string, i: number, n: number): string | undefined {
  // A slice and a comparison: several times cheaper than startsWith at a position.
  for (const known of knownFields) if (i + known.length <= n && s.slice(i, i + known.length) === known) return known;
  return undefined;
}

function rememberFields(value: string): void {
  // Concatenated, then sliced: a flat copy, so the remembered value does not hold the line or item it came from.
  knownFields[nextKnownField] = `${value} `.slice(0, -1);
  nextKnownField = (nextKnownField + 1) % KNOWN_FIELDS;
}

/**
 * Validates and skips one JSON value at `i` (no leading whitespace): the
 * index after it, or -1 if it is not valid JSON or nests deeper than
 * {@link MAX_DEPTH}. One loop with an explicit stack (a bit per level, set
 * for objects), so skipping costs no call per token.
 *
 * The objects of a kind's `fieldsV1` repeat from object to object (the
 * same manager sets the same fields), so the last few validated are kept:
 * a `fieldsV1` value that starts with one of them is that very object (a
 * JSON object ends where its braces close, and the scan would read the same
 * characters the same way), skipped with one comparison. Only the depth
 * limit could have answered otherwise, and it gives up the fast path only.
 */
function skipValue(s: string, i: number, n: number): number {
  let depth = 0;
  let objects = 0;
  let state = VALUE;
  /** The last key read was `"fieldsV1"`. */
  let fieldsKey = false;
  /** Where the `fieldsV1` object being validated started (-1: none), and its depth. */
  let fieldsStart = -1;
  let fieldsDepth = 0;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === QUOTE) {
      const start = i;
      i = stringClose(s, i, n);
      if (i < 0) return -1;
      if (state === OBJECT_FIRST || state === KEY) {
        fieldsKey = i - start === FIELDS_V1_KEY.length - 1 && s.slice(start, i + 1) === FIELDS_V1_KEY;
        state = COLON_NEXT;
      } else if (state === VALUE || state === ARRAY_FIRST) {
        if (depth === 0) return i + 1;
        fieldsKey = false;
        state = AFTER_VALUE;
      } else {
        return -1;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if ((state !== VALUE && state !== ARRAY_FIRST) || depth === MAX_DEPTH) return -1;
      const fieldsValue = fieldsKey && state === VALUE && c === OPEN_BRACE && fieldsStart < 0;
      fieldsKey = false;
      if (fieldsValue) {
        const known = knownFieldsAt(s, i, n);
        if (known !== undefined) {
          i += known.length - 1;
          state = AFTER_VALUE;
          continue;
        }
        fieldsStart = i;
        fieldsDepth = depth + 1;
      }
      depth++;
      objects = c === OPEN_BRACE ? (objects << 1) | 1 : objects << 1;
      state = c === OPEN_BRACE ? OBJECT_FIRST : ARRAY_FIRST;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      const inObject = (objects & 1) === 1;
      if (depth === 0 || inObject !== (c === CLOSE_BRACE)) return -1;
      if (state !== AFTER_VALUE && state !== (inObject ? OBJECT_FIRST : ARRAY_FIRST)) return -1;
      if (depth === fieldsDepth && fieldsStart >= 0) {
        if (i + 1 - fieldsStart <= KNOWN_FIELDS_CHARS) rememberFields(s.slice(fieldsStart, i + 1));
        fieldsStart = -1;
      }
      objects >>>= 1;
      if (--depth === 0) return i + 1;
      state = AFTER_VALUE;
    } else if (c === COLON) {
      if (state !== COLON_NEXT) return -1;
      state = VALUE;
    } else if (c === COMMA) {
      if (state !== AFTER_VALUE) return -1;
      state = (objects & 1) === 1 ? KEY : VALUE;
    } else if (c !== 32 && c !== 10 && c !== 13 && c !== 9) {
      if (state !== VALUE && state !== ARRAY_FIRST) return -1;
      fieldsKey = false;
      const end = skipScalar(s, i, n, c);
      if (end < 0 || depth === 0) return end;
      i = end - 1;
      state = AFTER_VALUE;
    }
  }
  return -1;
}

/** The index of the closing quote of the JSON string at `i`, validated (no raw control character, only JSON's escapes); -1 if invalid. */
function stringClose(s: string, i: number, n: number): number {
  for (let j = i + 1; j < n; j++) {
    const c = s.charCodeAt(j);
    // Most characters: neither a quote, a backslash nor a control character.
    if (c > QUOTE && c !== BACKSLASH) continue;
    if (c === QUOTE) return j;
    if (c < 32) return -1;
    if (c === BACKSLASH) {
      const e = at(s, ++j, n);
      if (e === LOWER_U) {
        if (!isHex(at(s, j + 1, n)) || !isHex(at(s, j + 2, n)) || !isHex(at(s, j + 3, n)) || !isHex(at(s, j + 4, n))) return -1;
        j += 4;
      } else if (e !== QUOTE && e !== BACKSLASH && e !== 47 && e !== 98 && e !== 102 && e !== 110 && e !== 114 && e !== 116) {
        return -1;
      }
    }
  }
  return -1;
}

/** A number, `true`, `false` or `null` at `i` (first character `c`): the index after it, or -1. */
function skipScalar(s: string, i: number, n: number, c: number): number {
  if (c === MINUS || (c >= ZERO && c <= NINE)) return skipNumber(s, i, n);
  if (i + 4 <= n && (s.startsWith('true', i) || s.startsWith('null', i))) return i + 4;
  if (i + 5 <= n && s.startsWith('false', i)) return i + 5;
  return -1;
}

function isHex(c: number): boolean {
  return (c >= ZERO && c <= NINE) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
}

/** A JSON number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`. */
function skipNumber(s: string, i: number, n: number): number {
  if (at(s, i, n) === MINUS) i++;
  let c = at(s, i, n);
  if (c === ZERO) i++;
  else if (c >= 49 && c <= NINE) i = digits(s, i, n);
  else return -1;
  if (at(s, i, n) === DOT) {
    const after = digits(s, i + 1, n);
    if (after === i + 1) return -1;
    i = after;
  }
  c = at(s, i, n);
  if (c === LOWER_E || c === UPPER_E) {
    i++;
    c = at(s, i, n);
    if (c === PLUS || c === MINUS) i++;
    const after = digits(s, i, n);
    if (after === i) return -1;
    i = after;
  }
  return i;
}

function digits(s: string, i: number, n: number): number {
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c < ZERO || c > NINE) return i;
    i++;
  }
  return i;
}
