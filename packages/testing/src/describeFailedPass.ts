import type { FailedPass } from './FailedPass.js';

/**
 * The first stack frame of `err` worth reading: the place that threw it.
 * Frames of the error's own constructors (`new FakeStatusError`), of
 * node_modules and of Node's internals are skipped, unless nothing else is left.
 */
export function firstStackFrame(err: unknown): string | undefined {
  if (!(err instanceof Error) || typeof err.stack !== 'string') return undefined;
  const frames = err.stack
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('at '));
  const constructors = errorConstructorNames(err);
  const own = (frame: string): boolean => constructors.some((name) => frame.startsWith(`at new ${name} `));
  const foreign = (frame: string): boolean => /[\\/]node_modules[\\/]|\bnode:|\(native\)|^at <anonymous>$/.test(frame);
  return frames.find((f) => !own(f) && !foreign(f)) ?? frames.find((f) => !own(f)) ?? frames[0];
}

/** `FakeStatusError`, `Error`: the names of the classes whose constructors ran for `err`. */
function errorConstructorNames(err: Error): string[] {
  const names: string[] = [];
  for (
    let proto: unknown = Object.getPrototypeOf(err);
    proto !== null && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    const ctor: unknown = (proto as { constructor?: unknown }).constructor;
    if (typeof ctor === 'function' && ctor.name !== '') names.push(ctor.name);
  }
  return names;
}

/**
 * One failed pass as the test output shows it, e.g.
 * `demo.protean.dev/v1/webapps prod/shop (failure 2 in a row; retried with backoff): Error: boom`
 * and the frame on the next line.
 */
export function describeFailedPass(pass: FailedPass): string {
  const instance = pass.instance ?? `one of ${pass.inFlight.join(', ')}`;
  const notes = [
    ...(pass.failures === undefined ? [] : [`failure ${pass.failures} in a row`]),
    ...(pass.dropped === undefined ? [] : [pass.dropped ? 'dropped after its last retry' : 'retried with backoff']),
  ];
  const frame = pass.frame === undefined ? '' : `\n    ${pass.frame}`;
  return `${pass.parent} ${instance}${notes.length === 0 ? '' : ` (${notes.join('; ')})`}: ${pass.summary}${frame}`;
}
