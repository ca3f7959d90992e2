import { InvalidOptionError } from './InvalidOptionError.js';

/**
 * A project name that cannot be both an npm package name and the name of the
 * controller's Kubernetes objects (a DNS label: lowercase letters, digits and
 * `-`, starting and ending with a letter or digit, at most 63 characters).
 */
export class InvalidProjectNameError extends InvalidOptionError {
  override readonly name = 'InvalidProjectNameError';
  constructor(value: string, requirement: string) {
    super('name', value, requirement);
  }
}
