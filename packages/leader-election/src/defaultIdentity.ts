import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * A holder identity unique to this process: `<hostname>_<pid>_<8 hex digits>`
 * (in a pod the hostname is the pod name). The random part keeps two
 * processes apart even when a restarted container reuses hostname and pid.
 */
export function defaultIdentity(): string {
  return `${hostname()}_${process.pid}_${randomBytes(4).toString('hex')}`;
}
