/** How many distinct values an interner keeps before it starts over. */
const DEFAULT_LIMIT = 4096;

/**
 * One copy of each value that many cached objects of a list/watch share,
 * called as a function for strings (namespaces, creation timestamps) and
 * through `labels` for label sets. What the decoders take: `trimMetadata`
 * interns with both.
 */
export interface Interner {
  (s: string): string;
  /** The cached label set equal to `labels` (frozen), or `labels` itself, frozen, if none. */
  readonly labels?: (labels: Record<string, string>) => Record<string, string>;
}

/**
 * One copy of each string that many cached objects of a list/watch share:
 * namespaces and creation timestamps. `JSON.parse` makes a new string for
 * every value longer than a few characters, so without it 100,000 objects
 * created in the same minute keep 100,000 copies of 60 timestamps (40 bytes
 * each). Bounded: at `limit` distinct strings it forgets them all and goes on
 * from empty, so a resource whose objects were each created at a different
 * second costs a lookup per object, never a second copy of every timestamp.
 * A string interned before the reset stays shared by the objects that hold it.
 *
 * `interner` is the {@link Interner} the decoders take: this instance's
 * strings and a bounded set of label sets. Objects with the same labels (the
 * pods of one ReplicaSet, the ConfigMaps a controller labels alike) share one
 * frozen labels object instead of one each (44 bytes for two labels);
 * frozen because a cached object is read-only, and a write to one object's
 * labels would otherwise reach every object that shares them.
 */
export class StringInterner {
  private readonly known = new Map<string, string>();
  private readonly labelSets = new Map<string, Record<string, string>>();

  constructor(private readonly limit: number = DEFAULT_LIMIT) {}

  /** The first string equal to `s` seen since the last reset (`s` itself if none). */
  readonly intern = (s: string): string => this.remember(this.known, s, s);

  /** The first label set equal to `labels` (same keys in the same order, same values) since the last reset, frozen. */
  readonly labels = (labels: Record<string, string>): Record<string, string> => {
    const shared = this.remember(this.labelSets, JSON.stringify(labels), labels);
    if (shared === labels) Object.freeze(labels);
    return shared;
  };

  /** What `map` holds for `key`, else `value`, held from now on (`map` emptied first when it holds `limit`). */
  private remember<V>(map: Map<string, V>, key: string, value: V): V {
    const known = map.get(key);
    if (known !== undefined) return known;
    if (map.size >= this.limit) map.clear();
    map.set(key, value);
    return value;
  }

  /** Strings and label sets, as the decoders take them. */
  readonly interner: Interner = Object.assign((s: string) => this.remember(this.known, s, s), { labels: this.labels });

  /** How many distinct strings it holds now. */
  get size(): number {
    return this.known.size;
  }
}
