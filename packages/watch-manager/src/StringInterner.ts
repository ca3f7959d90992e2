/** How many distinct strings an interner keeps before it starts over. */
const DEFAULT_LIMIT = 4096;

/**
 * One copy of each string that many cached objects of a list/watch share:
 * namespaces and creation timestamps. `JSON.parse` makes a new string for
 * every value longer than a few characters, so without it 100,000 objects
 * created in the same minute keep 100,000 copies of 60 timestamps (40 bytes
 * each). Bounded: at `limit` distinct strings it forgets them all and goes on
 * from empty, so a resource whose objects were each created at a different
 * second costs a lookup per object, never a second copy of every timestamp.
 * A string interned before the reset stays shared by the objects that hold it.
 */
export class StringInterner {
  private readonly known = new Map<string, string>();

  constructor(private readonly limit: number = DEFAULT_LIMIT) {}

  /** The first string equal to `s` seen since the last reset (`s` itself if none). */
  readonly intern = (s: string): string => {
    const known = this.known.get(s);
    if (known !== undefined) return known;
    if (this.known.size >= this.limit) this.known.clear();
    this.known.set(s, s);
    return s;
  };

  /** How many distinct strings it holds now. */
  get size(): number {
    return this.known.size;
  }
}
