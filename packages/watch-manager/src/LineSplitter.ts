import { StringDecoder } from 'node:string_decoder';

/**
 * Splits a byte stream of newline-delimited JSON into lines. A line may
 * arrive across any number of chunks, and a chunk may end inside a
 * multi-byte UTF-8 character; both are carried over to the next chunk.
 * Blank lines are skipped. Call {@link end} when the stream ends so a last
 * line without a trailing newline is not lost. After `onLine` throws, discard
 * the splitter: the lines after the failing one in that chunk are dropped.
 */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';

  /** Feeds one chunk; calls `onLine` for every line it completes, in order. */
  push(chunk: Buffer | string, onLine: (line: string) => void): void {
    const text = this.pending + (typeof chunk === 'string' ? chunk : this.decoder.write(chunk));
    let start = 0;
    for (let nl = text.indexOf('\n', start); nl >= 0; nl = text.indexOf('\n', start)) {
      const line = text.slice(start, nl);
      start = nl + 1;
      if (!isBlank(line)) onLine(line);
    }
    this.pending = text.slice(start);
  }

  /** Flushes what is left after the last newline. */
  end(onLine: (line: string) => void): void {
    const rest = this.pending + this.decoder.end();
    this.pending = '';
    if (!isBlank(rest)) onLine(rest);
  }
}

function isBlank(s: string): boolean {
  return s.trim().length === 0;
}
