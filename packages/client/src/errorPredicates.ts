import { apiStatusChain } from '@protean/core/internal';
import { ApplyConflictError } from './ApplyConflictError.js';

/**
 * True for a 409 Conflict from a stale `resourceVersion` or a failed
 * precondition: the write lost to another writer, and re-reading and
 * trying again is the fix. False for an {@link ApplyConflictError}, which
 * no retry fixes, and for 409 AlreadyExists.
 */
export function isConflict(err: unknown): boolean {
  if (err instanceof ApplyConflictError) return false;
  for (const status of apiStatusChain(err)) {
    if (status.code === 409 && status.reason !== 'AlreadyExists') return true;
  }
  return false;
}

/** True for a 409 AlreadyExists (a create of an object that exists). */
export function isAlreadyExists(err: unknown): boolean {
  for (const status of apiStatusChain(err)) {
    if (status.reason === 'AlreadyExists') return true;
  }
  return false;
}
