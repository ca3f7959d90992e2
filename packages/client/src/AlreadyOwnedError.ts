import type { OwnerReference } from '@protean/core';

/**
 * `setControllerReference` refused: the object already has a controller
 * reference to another owner (`existing`). Only one controller may own an
 * object; taking it over would make two controllers fight over it.
 */
export class AlreadyOwnedError extends Error {
  override readonly name = 'AlreadyOwnedError';
  /** The object's current controller. */
  readonly existing: OwnerReference;
  /** The owner that was refused. */
  readonly requested: OwnerReference;
  /** `namespace/name` (or `name`) of the object. */
  readonly object: string;

  constructor(object: string, existing: OwnerReference, requested: OwnerReference) {
    super(
      `${object} is already controlled by ${existing.kind} ${existing.name} (uid ${existing.uid}, ${existing.apiVersion}); ` +
        `refusing to make ${requested.kind} ${requested.name} (uid ${requested.uid}) its controller`,
    );
    this.object = object;
    this.existing = existing;
    this.requested = requested;
  }
}
