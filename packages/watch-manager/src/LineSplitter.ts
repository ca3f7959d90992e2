import { StringDecoder } from 'node:string_decoder';
import { sliceCopy } from './sliceCopy.js';

/**
 * Receives one line of a {@link LineSplitter}: the characters of `text`
 * from `start` to `end` (exclusive, without the newline). `text` is usually
 * the whole decoded chunk, so a line costs no copy; slice it to keep it.
 */
export type LineHandler = (text: string, start: number, end: number) => void;

/**
 * Splits a byte stream of newline-delimited JSON into lines. Each chunk is
 * decoded to one string, and lines are handed out as ranges of it. A line
 * may arrive across any number of chunks (it is then joined into a string
 * of its own), and a chunk may end inside a multi-byte UTF-8 character;
 * both are carried over to the next chunk. Blank lines are skipped. Call
 * {@link end} when the stream ends so a last line without a trailing
 * newline is not lost. After `onLine` throws, discard the splitter: the
 * lines after the failing one in that chunk are dropped.
 */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';

  /** Feeds one chunk; calls `onLine` for every line it completes, in order. */
  push(chunk: Buffer | string, onLine: LineHandler): void {
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    let nl = text.indexOf('\n');
    if (nl < 0) {
      this.pending += text;
      return;
    }
    if (this.pending === '') {
      emit(text, 0, nl, onLine);
    } else {
      const first = this.pending + text.slice(0, nl);
      this.pending = '';
      emit(first, 0, first.length, onLine);
    }
    let start = nl + 1;
    for (nl = text.indexOf('\n', start); nl >= 0; nl = text.indexOf('\n', start)) {
      emit(text, start, nl, onLine);
      start = nl + 1;
    }
    // A line that goes on in the next chunk: keep it, not the chunk (see sliceCopy).
    this.pending = start < text.length ? sliceCopy(text, start) : '';
  }

  /** Flushes what is left after the last newline. */
  end(onLine: LineHandler): void {
    const rest = this.pending + this.decoder.end();
    this.pending = '';
    emit(rest, 0, rest.length, onLine);
  }
}

function emit(text: string, start: number, end: number, onLine: LineHandler): void {
  // A watch event starts with '{'; anything else is checked for being blank (String.prototype.trim's whitespace).
  if (start < end && (text.charCodeAt(start) === 123 || text.slice(start, end).trim().length > 0)) onLine(text, start, end);
}
