import { readFileSync } from 'node:fs';

/**
 * File contents re-read at most every `refreshMs`, as client-go re-reads a
 * token file once a minute: a rotated token, certificate or CA is picked up
 * by the next request after that, without reading the disk per request.
 * A file that cannot be re-read keeps its last contents (a rotation
 * replacing the file is not atomic everywhere); a first read that fails
 * throws.
 */
export class RereadFiles {
  private readonly files = new Map<string, { readonly contents: Buffer; readonly readAtMs: number }>();

  constructor(
    private readonly now: () => number,
    private readonly refreshMs: number,
  ) {}

  read(path: string): Buffer {
    const known = this.files.get(path);
    const nowMs = this.now();
    if (known !== undefined && nowMs - known.readAtMs < this.refreshMs) return known.contents;
    let contents: Buffer;
    try {
      contents = readFileSync(path);
    } catch (err) {
      if (known !== undefined) return known.contents;
      throw err;
    }
    this.files.set(path, { contents, readAtMs: nowMs });
    return contents;
  }
}
