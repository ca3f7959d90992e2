import { describe, expect, it } from '@jest/globals';
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
