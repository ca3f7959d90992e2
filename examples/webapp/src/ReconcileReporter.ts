import type { GroupVersionResource, NamespacedName } from '@protean/core';
import type { ConfigMapChange } from './webAppConfigMap.js';

/** How one handler call ended. */
export type ReconcileResult =
  | {
      readonly outcome: 'reconciled';
      readonly configMap: ConfigMapChange;
      readonly configMapCount: number;
      readonly generation: number;
      readonly statusWritten: boolean;
    }
  | { readonly outcome: 'deleted' }
  | { readonly outcome: 'invalid'; readonly message: string }
  | { readonly outcome: 'failed'; readonly error: unknown };

/**
 * Hooks the WebApp handler calls so a caller can follow it (the demo's live
 * log and latency measurement). Both are optional and must not throw.
 */
export interface ReconcileReporter {
  /** First thing in every handler call. */
  started?(gvr: GroupVersionResource, instance: NamespacedName): void;
  /** Last thing in every handler call, with its result. */
  finished?(gvr: GroupVersionResource, instance: NamespacedName, result: ReconcileResult): void;
}
