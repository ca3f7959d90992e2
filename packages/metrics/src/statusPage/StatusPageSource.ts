import type { ExplainQuery } from './parseExplainQuery.js';

/**
 * What the status page reads: a snapshot of the controller and the routing
 * of one object. `instrumentContainer` builds one over the composed
 * `DynamicController`; a test can pass its own to `MetricsServer.start`.
 *
 * Easy to get wrong: both answers are served as JSON to whoever reaches
 * the port, so they must hold metadata only (names, labels, watch
 * declarations, error summaries), never an object's spec, data or status.
 */
export interface StatusPageSource {
  /** `/statusz/status.json`: a JSON-serialisable snapshot (`ControllerStatus` and the informers' assessed health). */
  status(): unknown;
  /**
   * `/statusz/explain`: where an event for the object goes. Throws an
   * error named `ExplainError` with `reason` `no-informer` or `not-cached`
   * (answered 404) when the labels are to be read from a cache that does
   * not hold the object, `unsupported` (501) when routing cannot be
   * explained, or a `TypeError` (400) for a bad target.
   */
  explain(query: ExplainQuery): unknown;
}
