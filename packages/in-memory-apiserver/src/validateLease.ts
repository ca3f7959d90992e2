import type { ServedResource } from './ServedResource.js';
import { badRequest, invalid, type FieldCause } from './statusErrors.js';
import type { KubeObject } from './types.js';

/** Go's `metav1.MicroTime` layout: RFC 3339 with exactly six fractional digits. */
const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}(Z|[+-]\d\d:\d\d)$/;
const MICRO_TIME_LAYOUT = '2006-01-02T15:04:05.000000Z07:00';

/**
 * What the real server checks in a `coordination.k8s.io/v1` Lease spec:
 * `acquireTime`/`renewTime` must be MicroTime strings with exactly six
 * fractional digits (400 BadRequest, since they fail to decode: a
 * millisecond `toISOString()` is the easy mistake), `leaseDurationSeconds`
 * must be greater than 0 and `leaseTransitions` not negative (422 Invalid).
 */
export function validateLease(def: ServedResource, lease: KubeObject): void {
  const spec = lease['spec'];
  if (spec === undefined || spec === null) return;
  if (typeof spec !== 'object' || Array.isArray(spec))
    throw badRequest(`Lease in version "v1" cannot be handled as a Lease: spec must be an object`);
  const fields = spec as Record<string, unknown>;
  for (const key of ['acquireTime', 'renewTime']) {
    const value = fields[key];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' || !MICRO_TIME.test(value)) {
      throw badRequest(
        `Lease in version "v1" cannot be handled as a Lease: parsing time ${JSON.stringify(value)} as "${MICRO_TIME_LAYOUT}"`,
      );
    }
  }
  const causes: FieldCause[] = [];
  const duration = fields['leaseDurationSeconds'];
  if (typeof duration === 'number' && duration <= 0) {
    causes.push({
      field: 'spec.leaseDurationSeconds',
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${duration}: must be greater than 0`,
    });
  }
  const transitions = fields['leaseTransitions'];
  if (typeof transitions === 'number' && transitions < 0) {
    causes.push({
      field: 'spec.leaseTransitions',
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${transitions}: must be greater than or equal to 0`,
    });
  }
  if (causes.length > 0) throw invalid(def.group, def.kind, lease.metadata.name, causes);
}
