import { describe, expect, it } from '@jest/globals';
import { BIG_CHUNK_CHARS, heldAfterGc } from './heldBytes.testkit.js';
import { LineSplitter } from './LineSplitter.js';

function split(chunks: Array<Buffer | string>): string[] {
  const lines: string[] = [];
  const s = new LineSplitter();
  const onLine = (text: string, start: number, end: number): number => lines.push(text.slice(start, end));
  for (const c of chunks) s.push(c, onLine);
  s.end(onLine);
  return lines;
}

describe('LineSplitter', () => {
  it('joins a line split across chunks and splits several lines in one chunk', () => {
    expect(split(['{"a":', '1}\n{"b"', ':2}\n{"c":3}\n'])).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it('keeps a multi-byte UTF-8 character split between chunks intact', () => {
    const bytes = Buffer.from('{"name":"żółw"}\n', 'utf8');
    const cut = bytes.indexOf(0xc5) + 1; // inside the two-byte "ż"
    expect(split([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(['{"name":"żółw"}']);
  });

  it('delivers a last line without a trailing newline at end, and skips blank lines', () => {
    expect(split(['\n{"a":1}\r\n\n', '{"b":2}'])).toEqual(['{"a":1}\r', '{"b":2}']);
  });

  it('splits one byte at a time', () => {
    const text = '{"type":"ADDED"}\n{"type":"BOOKMARK"}\n';
    expect(split([...Buffer.from(text)].map((b) => Buffer.from([b])))).toEqual(['{"type":"ADDED"}', '{"type":"BOOKMARK"}']);
  });
});

describe('LineSplitter memory', () => {
  it('keeps a line that goes on in the next chunk, not the chunk', () => {
    const s = new LineSplitter();
    const lines: string[] = [];
    const onLine = (text: string, start: number, end: number): void => void lines.push(text.slice(start, Math.min(end, start + 20)));
    const before = heldAfterGc();
    // A chunk of 4 MiB of whole lines, ending inside the next line, made and fed in a frame of its own.
    const feed = (): void =>
      s.push(Buffer.from(`{"type":"BOOKMARK","pad":"${'x'.repeat(BIG_CHUNK_CHARS)}"}\n{"type":"ADDED","object":{"metad`), onLine);
    feed();
    lines.length = 0;
    expect(heldAfterGc() - before).toBeLessThan(BIG_CHUNK_CHARS / 4);
    s.push('ata":{"name":"a"}}}\n', (text, start, end) => void lines.push(text.slice(start, end)));
    expect(lines).toEqual(['{"type":"ADDED","object":{"metadata":{"name":"a"}}}']);
  });
});
