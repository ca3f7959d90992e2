import type { Logger } from '../logger.js';
import type { ControllerObserver } from './ControllerObserver.js';

/** Calls one observer hook; a throwing hook is logged, never propagated into the controller. */
export function notifyObserver(observer: ControllerObserver, log: Logger, call: (observer: ControllerObserver) => void): void {
  try {
    call(observer);
  } catch (err) {
    log.warn({ err }, 'controller observer hook failed');
  }
}
