/**
 * The settings objects already checked where they entered the system:
 * `resolveConfig`'s results, and the options a package checked once
 * and hands on to the parts it builds. A public constructor given one of
 * these checks nothing again; any other object (a caller's own) it checks,
 * so what a user passes is always checked exactly once.
 */
const checked = new WeakSet<object>();

/**
 * Records `settings` as checked and returns it. Only for an object whose
 * every value was checked, held where no one can change it afterwards
 * (frozen, or private to the code that built it).
 */
export function markChecked<T extends object>(settings: T): T {
  checked.add(settings);
  return settings;
}

/** True when `settings` went through {@link markChecked}. */
export function wasChecked(settings: object | undefined): boolean {
  return settings !== undefined && checked.has(settings);
}
