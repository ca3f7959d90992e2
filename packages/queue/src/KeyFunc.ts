/**
 * Identity of a queue item: two items with the same key are the same item
 * (client-go compares items by value; TypeScript objects need a key).
 * Easy to get wrong: the key must be stable for the item's lifetime and must
 * not collide across distinct items (e.g. use `namespace/name`, not `name`).
 */
export type KeyFunc<T> = (item: T) => string;
