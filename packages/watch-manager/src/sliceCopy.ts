/** V8 makes a slice this long or longer a view of its parent string (a shorter one is copied). */
const SLICED_STRING_MIN_LENGTH = 13;

/**
 * `text.slice(start, end)` as a string of its own, one that does not keep
 * `text` alive. V8 represents a slice of 13 or more characters as a view of
 * the whole parent: a few hundred characters of an item that goes on in the
 * next chunk would hold the whole decoded chunk (16 KiB for an HTTP/2 frame,
 * more over HTTP/1.1) until that chunk arrives. With many responses read at
 * once the next chunk comes after other responses' chunks, so the held chunk
 * outlives two scavenges, is promoted and dies in old space, where it costs
 * a full collection and leaves the pages it fragmented committed.
 *
 * Concatenating and slicing again copies: V8 flattens the concatenation into
 * a new string of the slice's length before slicing it, and the parent is
 * free as soon as the caller drops it. Use it only for what outlives the
 * chunk (a carried-over tail); a slice parsed at once costs nothing.
 */
export function sliceCopy(text: string, start: number, end: number = text.length): string {
  const slice = text.slice(start, end);
  if (slice.length < SLICED_STRING_MIN_LENGTH) return slice;
  return `${slice} `.slice(0, -1);
}
