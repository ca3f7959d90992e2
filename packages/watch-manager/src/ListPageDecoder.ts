import { StringDecoder } from 'node:string_decoder';
import type { GroupVersionResource, PartialObjectMetadata } from '@protean/core';
import { fastParseListItem, LIST_ITEM_PREFIX } from './fastParseWatchLine.js';
import { decodeListPageByParse, notJson, type DecodedListPage, type ListPageMetadata } from './decodeListPage.js';
import type { ObjectDecoder } from './decodeWatchLine.js';
import { trimMetadata } from './trimMetadata.js';
import type { Interner } from './StringInterner.js';

// Where the scanner is in the top-level object (outside any value it is reading).
const START = 0;
const FIRST_KEY = 1;
const KEY = 2;
const COLON = 3;
const VALUE = 4;
const AFTER_MEMBER = 5;
const ITEMS_FIRST = 6;
const ITEMS_NEXT = 7;
const ITEMS_AFTER = 8;
const DONE = 9;

// What a value being read is (its role in the top-level grammar) and how it is delimited.
const NONE = 0;
const NESTED = 1;
const SCALAR = 2;

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON_CHAR = 58;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const LOWER_K = 107;
const UPPER_P = 80;

const HEAD_CHARS = 100;

/** What follows an item of a metadata-only LIST when another comes after it, as kube-apiserver writes them. */
const NEXT_ITEM = Buffer.from(`,${LIST_ITEM_PREFIX}`, 'latin1');

function isWhitespace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/**
 * Decodes a LIST response body as it arrives, chunk by chunk, into what
 * {@link decodeListPageByParse} gives for the whole body: the trimmed
 * metadata of every item of `items` and the list's `metadata` (before or
 * after `items`, the last one if repeated), without holding the body. A
 * byte-level scanner walks the top-level object; each member value but
 * `items`, each key and each element of `items` is cut out by tracking
 * strings, escapes and depth, then `JSON.parse`d on its own, and an item
 * is trimmed at once: at most one item's text is held (plus the chunk).
 * An item of the exact form kube-apiserver writes for a metadata-only list
 * has only its metadata parsed, without `managedFields`
 * (`fastParseListItem`, the watch lines' fast path), and is found without
 * the byte-by-byte scan when the next item starts in the same chunk: the
 * item is cut where the next one's `,{"kind":"PartialObjectMetadata",...`
 * is found (a native search), and the cut is kept only if the fast path
 * reads it as one complete JSON object (with its `managedFields` checked
 * valid). A JSON object ends where its braces close, so no other end is
 * possible: the scan would have cut it there too.
 *
 * The body is JSON exactly when every piece parses and the scanner's own
 * grammar (braces, keys, colons, commas between pieces) holds; on the first
 * fault the decoder stops reading and {@link end} throws the same
 * `InvalidResponse` error as the whole-body parse (same message; the
 * `cause` says where it stopped). A body whose first token is not `{` is
 * kept whole and decoded by {@link decodeListPageByParse} (it is no list).
 * The scanner reads bytes, not decoded text: every character it looks for
 * is ASCII, and no byte of a multi-byte UTF-8 character is, so only each
 * piece is decoded (as the whole body would decode it), and a chunk is never
 * made a string. A decoded chunk alive while it is scanned would be caught
 * by a scavenge now and then and promoted, to die in old space: with many
 * lists read at once, that was most of what a sync left in old space. A
 * piece that goes on in the next chunk is kept as a copy of its bytes, so
 * the chunk is free once scanned.
 *
 * Easy to get wrong: a fault does not throw from {@link push}: the body is
 * read to its end first, as the whole-body path did, so a broken
 * connection still surfaces as such.
 */
export class ListPageDecoder {
  /** Decodes the body's first characters, for the error of a body that is not JSON. */
  private readonly headDecoder = new StringDecoder('utf8');
  private head = '';
  private state = START;
  /** The kind of value being read (NONE between values), and its scanning state. */
  private mode = NONE;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** The bytes of the value being read from earlier chunks (copies: see the class comment). */
  private readonly parts: Buffer[] = [];
  /** The key of the member being read, once its key is parsed. */
  private key = '';
  private items: PartialObjectMetadata[] = [];
  private metadata: ListPageMetadata | undefined;
  private failure: Error | undefined;
  /** The whole body, once it is known not to be an object (or the whitespace before its first token). */
  private whole: Buffer[] | undefined = [];
  /** Chunks pushed so far, and the last one in which no next item was found from an item on (none after it, either). */
  private chunks = 0;
  private noNextItemIn = -1;

  constructor(
    private readonly gvr: GroupVersionResource,
    private readonly intern: Interner,
    /** Full objects (the object cache): how each item is decoded; unset: metadata only, through the fast path. */
    private readonly decodeObject?: ObjectDecoder,
  ) {}

  /** Feeds one chunk of the body. */
  push(chunk: Buffer | string): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    if (bytes.length === 0) return;
    this.chunks++;
    if (this.head.length < HEAD_CHARS) this.readHead(bytes);
    if (this.failure !== undefined) return;
    if (this.whole !== undefined) {
      this.whole.push(bytes);
      if (this.state !== START) return;
    }
    this.scan(bytes);
  }

  /** The body ended: the decoded page, or the error of a body that is not JSON. */
  end(): DecodedListPage {
    if (this.head.length < HEAD_CHARS) this.head = (this.head + this.headDecoder.end()).slice(0, HEAD_CHARS);
    if (this.failure !== undefined) throw notJson(this.gvr, this.head, this.failure);
    if (this.whole !== undefined) {
      return decodeListPageByParse(Buffer.concat(this.whole).toString('utf8'), this.gvr, this.intern, this.decodeObject);
    }
    if (this.state !== DONE) throw notJson(this.gvr, this.head, new SyntaxError('Unexpected end of JSON input'));
    return { items: this.items, metadata: this.metadata };
  }

  /** Decodes the first characters of the body (a character has at most 4 bytes: 4 per character wanted suffice). */
  private readHead(bytes: Buffer): void {
    const wanted = HEAD_CHARS - this.head.length;
    // Decoded from at most 4 * wanted bytes: a slice of it holds no chunk.
    const text = this.head + this.headDecoder.write(bytes.length > 4 * wanted ? bytes.subarray(0, 4 * wanted) : bytes);
    this.head = text.slice(0, HEAD_CHARS);
  }

  private scan(text: Buffer): void {
    const n = text.length;
    let i = 0;
    while (i < n) {
      if (this.mode !== NONE) {
        i = this.read(text, i, i);
        if (i < 0) return;
        continue;
      }
      const c = text[i] as number;
      if (isWhitespace(c)) {
        i++;
        continue;
      }
      switch (this.state) {
        case START:
          if (c !== OPEN_BRACE) {
            // Not an object, so no list: the whole body (kept in `whole`) goes to the plain parse.
            this.state = DONE;
            return;
          }
          this.whole = undefined;
          this.state = FIRST_KEY;
          i++;
          continue;
        case FIRST_KEY:
        case AFTER_MEMBER:
          if (c === CLOSE_BRACE) {
            this.state = DONE;
            i++;
            continue;
          }
          if (this.state === AFTER_MEMBER) {
            if (c !== COMMA) return this.fail(text, i);
            this.state = KEY;
            i++;
            continue;
          }
          if (c !== QUOTE) return this.fail(text, i);
          break;
        case KEY:
          if (c !== QUOTE) return this.fail(text, i);
          break;
        case COLON:
          if (c !== COLON_CHAR) return this.fail(text, i);
          this.state = VALUE;
          i++;
          continue;
        case VALUE:
          if (c === OPEN_BRACKET && this.key === 'items') {
            this.items = [];
            this.state = ITEMS_FIRST;
            i++;
            continue;
          }
          break;
        case ITEMS_FIRST:
        case ITEMS_AFTER:
          if (c === CLOSE_BRACKET) {
            this.state = AFTER_MEMBER;
            i++;
            continue;
          }
          if (this.state === ITEMS_AFTER) {
            if (c !== COMMA) return this.fail(text, i);
            this.state = ITEMS_NEXT;
            i++;
            continue;
          }
          break;
        case ITEMS_NEXT:
          break;
        default:
          return this.fail(text, i);
      }
      if (c === OPEN_BRACE && (this.state === ITEMS_FIRST || this.state === ITEMS_NEXT) && this.decodeObject === undefined) {
        const end = this.readKnownItem(text, i);
        if (end > 0) {
          i = end;
          continue;
        }
      }
      // A value (key, member value or item) starts at i.
      if (c === QUOTE) {
        this.mode = NESTED;
        this.depth = 0;
        this.inString = true;
        this.escaped = false;
        i = this.read(text, i, i + 1);
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        this.mode = NESTED;
        this.depth = 1;
        this.inString = false;
        this.escaped = false;
        i = this.read(text, i, i + 1);
      } else {
        this.mode = SCALAR;
        i = this.read(text, i, i);
      }
      if (i < 0) return;
    }
  }

  /**
   * Reads on in the value that started at `start` (or in an earlier chunk),
   * from `from`: the index after it once it is complete and applied, or -1
   * when the chunk ended first (its text kept) or the value is not JSON.
   */
  private read(text: Buffer, start: number, from: number): number {
    const end = this.mode === NESTED ? this.skipNested(text, from) : skipScalar(text, from);
    if (end < 0) {
      // The chunk ended inside the value: keep a copy of its bytes, not the chunk.
      this.parts.push(Buffer.from(text.subarray(start)));
      return -1;
    }
    let value: string;
    if (this.parts.length === 0) {
      value = text.toString('utf8', start, end);
    } else {
      this.parts.push(text.subarray(start, end));
      value = Buffer.concat(this.parts).toString('utf8');
      this.parts.length = 0;
    }
    this.mode = NONE;
    return this.finish(value) ? end : -1;
  }

  /** The index after the nested value (string, object or array) being read, or -1 if it goes on past the chunk. */
  private skipNested(text: Buffer, i: number): number {
    const n = text.length;
    let depth = this.depth;
    let inString = this.inString;
    let escaped = this.escaped;
    for (; i < n; i++) {
      const c = text[i] as number;
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) {
          inString = false;
          if (depth === 0) return i + 1;
        }
      } else if (c === QUOTE) {
        inString = true;
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        depth++;
      } else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 0) {
        return i + 1;
      }
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    return -1;
  }

  /** Parses one complete value and applies it by its role; false (and failed) if it is not JSON. */
  private finish(value: string): boolean {
    const item = this.state !== FIRST_KEY && this.state !== KEY && this.state !== VALUE;
    // An item as kube-apiserver writes it has its metadata parsed without managedFields; any other piece is parsed whole.
    let parsed: unknown = item && this.decodeObject === undefined ? fastParseListItem(value) : undefined;
    if (parsed === undefined) {
      try {
        parsed = JSON.parse(value);
      } catch (err) {
        this.failure = err instanceof Error ? err : new SyntaxError(String(err));
        this.parts.length = 0;
        return false;
      }
    }
    switch (this.state) {
      case FIRST_KEY:
      case KEY:
        this.key = parsed as string;
        this.state = COLON;
        break;
      case VALUE:
        if (this.key === 'metadata') this.metadata = parsed as ListPageMetadata;
        else if (this.key === 'items') this.items = [];
        this.state = AFTER_MEMBER;
        break;
      default:
        this.applyItem(parsed);
    }
    return true;
  }

  private applyItem(parsed: unknown): void {
    const obj = this.decodeObject === undefined ? trimMetadata(parsed, this.intern) : this.decodeObject(parsed);
    if (obj !== undefined) this.items.push(obj);
    this.state = ITEMS_AFTER;
  }

  /**
   * The fast path for an item at `i` (a `{`) of a metadata-only list: the
   * index after it once read and applied, or -1 when the next item does not
   * start in this chunk or the fast path does not read the text before it as
   * one item (the scan then reads it). Searched for only where an item
   * seems to be of that form, and once per chunk at most without finding
   * one: items of another form (full objects, from a server that answers
   * with plain JSON) would otherwise have each search run to the chunk's end.
   */
  private readKnownItem(text: Buffer, i: number): number {
    // `{"kind":"P`: two bytes tell the server's form from others (the fast path checks the whole prefix).
    if (this.noNextItemIn === this.chunks || text[i + 2] !== LOWER_K || text[i + 9] !== UPPER_P) return -1;
    const next = text.indexOf(NEXT_ITEM, i + 1);
    if (next < 0) this.noNextItemIn = this.chunks;
    if (next < 0 || text[next - 1] !== CLOSE_BRACE) return -1;
    const parsed = fastParseListItem(text.toString('utf8', i, next));
    if (parsed === undefined) return -1;
    this.applyItem(parsed);
    return next;
  }

  private fail(text: Buffer, i: number): void {
    // The character at byte i (a multi-byte one decoded whole, as far as this chunk holds it).
    const token = text.toString('utf8', i, Math.min(i + 4, text.length)).slice(0, 1);
    this.failure = new SyntaxError(`Unexpected token '${token}' in the list body`);
    this.parts.length = 0;
  }
}

/** The index after a number, `true`, `false` or `null` starting at `i` (cut at the first character none of them holds), or -1 at the chunk's end. */
function skipScalar(text: Buffer, i: number): number {
  const n = text.length;
  for (; i < n; i++) {
    const c = text[i] as number;
    if (
      isWhitespace(c) ||
      c === COMMA ||
      c === CLOSE_BRACE ||
      c === CLOSE_BRACKET ||
      c === COLON_CHAR ||
      c === QUOTE ||
      c === OPEN_BRACE ||
      c === OPEN_BRACKET
    )
      return i;
  }
  return -1;
}
