import { stdSerializers } from 'pino';

/** What pino writes for an `err` field (its standard serializer's output). */
export type SerializedError = ReturnType<typeof stdSerializers.err>;

const MAX_CAUSES = 10;

/**
 * The message of `err` followed by those of its `cause` chain, each joined
 * with `: `, leaving out a cause whose message the text already holds.
 * Protean's errors embed their cause's message already (`watch of /v1/x:
 * the server answered 404 ...: WATCH /v1/x failed: 404 NotFound: ...`), so
 * appending every cause again would repeat the same text once per level.
 */
export function messageWithCauses(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  let text = err.message;
  const seen = new Set<unknown>([err]);
  let cause: unknown = err.cause;
  for (let depth = 0; cause !== undefined && cause !== null && depth < MAX_CAUSES && !seen.has(cause); depth++) {
    seen.add(cause);
    const message = cause instanceof Error ? cause.message : typeof cause === 'string' ? cause : '';
    if (message !== '' && !text.includes(message)) text = text === '' ? message : `${text}: ${message}`;
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return text;
}

/**
 * pino's standard `err` serializer with {@link messageWithCauses} as the
 * message, so a wrapped error logs its text once. `createLogger` installs it.
 *
 * Easy to get wrong: only the `message` changes; `stack` and the error's own
 * fields are pino's.
 */
export function serializeError(err: Error): SerializedError {
  const out = stdSerializers.err(err);
  if (err instanceof Error && out !== null && typeof out === 'object') out.message = messageWithCauses(err);
  return out;
}
