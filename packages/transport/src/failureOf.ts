import type { KubeTransportFailure } from './KubeTransportError.js';

/** The failure a Node socket error stands for (its string `code`), else `fallback`. */
export function failureOf(err: unknown, fallback: KubeTransportFailure): KubeTransportFailure {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'ECONNREFUSED') return 'ConnectionRefused';
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNABORTED') return 'ConnectionReset';
  return fallback;
}

/** The message of any thrown value. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
