import { InvalidSpecError } from './InvalidSpecError.js';
import type { WebAppObject, WebAppSpec } from './WebAppObject.js';

/**
 * Checks an instance's spec and fills in defaults (`message: ""`,
 * `replicas: 1`). Throws {@link InvalidSpecError} naming the field: the API
 * server enforces the CRD schema on writes, but an object stored before the
 * schema tightened stays as it was.
 */
export function parseWebAppSpec(obj: WebAppObject): WebAppSpec {
  const instance = `${obj.metadata.namespace}/${obj.metadata.name}`;
  const spec = obj.spec ?? {};
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) {
    throw new InvalidSpecError(instance, 'spec', `must be an object, got ${JSON.stringify(spec)}`);
  }
  const { message = '', replicas = 1 } = spec as Record<string, unknown>;
  if (typeof message !== 'string') {
    throw new InvalidSpecError(instance, 'spec.message', `must be a string, got ${JSON.stringify(message)}`);
  }
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw new InvalidSpecError(instance, 'spec.replicas', `must be an integer >= 0, got ${JSON.stringify(replicas)}`);
  }
  return { message, replicas };
}
