import { Counter, Histogram, type Registry } from 'prom-client';
import type { ReadinessCheck } from './MetricsServer.js';

/** One review answered, as `WebhookServer.onReview` of `@protean/webhooks` reports it. */
export interface WebhookReviewView {
  readonly path: string;
  readonly type: string;
  /** `allowed`, `denied`, `error`, `timeout`, `converted`, `conversion-failed`, `malformed` or `not-found`. */
  readonly outcome: string;
  readonly reason?: string;
  readonly durationMs: number;
}

/** One served path and its counts, as `WebhookServer.status()` reports it. */
export interface WebhookRouteView {
  readonly path: string;
  readonly type: string;
  readonly reviews: number;
  readonly allowed: number;
  readonly denied: number;
  readonly failed: number;
  readonly malformed: number;
}

/** `WebhookServer.status()` of `@protean/webhooks`: what the status page's Webhooks section shows. */
export interface WebhookStatusView {
  readonly listening: boolean;
  readonly url?: string;
  readonly routes: readonly WebhookRouteView[];
}

/**
 * What {@link instrumentWebhooks} observes: `WebhookServer` of
 * `@protean/webhooks` is one (this package does not depend on webhooks).
 */
export interface WebhookServerSource {
  onReview(listener: (review: WebhookReviewView) => void): () => void;
  status(): WebhookStatusView;
  readiness(): ReadinessCheck;
}

/**
 * Counts the reviews a webhook server answers on `registry`:
 *
 * - `dynamic_controller_webhook_requests_total{path,type,outcome}`: every review, by how it ended;
 * - `dynamic_controller_webhook_request_duration_seconds{path,type}`: from the request to the answer
 *   (the handler's time and the review's decoding and encoding);
 * - `dynamic_controller_webhook_denials_total{path,reason}`: refusals by their reason: the
 *   handler's `status.reason` (`Forbidden` by default), `Timeout` and `InternalError` for a handler
 *   that hung or threw, the error's name for a malformed review.
 *
 * Returns a function that stops counting and removes the metrics.
 */
export function instrumentWebhooks(registry: Registry, server: WebhookServerSource): () => void {
  const registers = [registry];
  const requests = new Counter({
    name: 'dynamic_controller_webhook_requests_total',
    help: 'Admission and conversion reviews answered, by path, webhook type and outcome',
    labelNames: ['path', 'type', 'outcome'],
    registers,
  });
  const duration = new Histogram({
    name: 'dynamic_controller_webhook_request_duration_seconds',
    help: 'Time from a review received to its answer, by path and webhook type',
    labelNames: ['path', 'type'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const denials = new Counter({
    name: 'dynamic_controller_webhook_denials_total',
    help: 'Reviews refused (denied, failed, timed out or malformed), by path and reason',
    labelNames: ['path', 'reason'],
    registers,
  });
  const stop = server.onReview((review) => {
    // A path nothing serves is any string a client sends: one series for all of them.
    const path = review.outcome === 'not-found' ? '(none)' : review.path;
    requests.inc({ path, type: review.type, outcome: review.outcome });
    if (review.outcome !== 'not-found') duration.observe({ path: review.path, type: review.type }, review.durationMs / 1000);
    const refused = review.outcome !== 'allowed' && review.outcome !== 'converted';
    if (refused) denials.inc({ path, reason: review.reason ?? review.outcome });
  });
  return () => {
    stop();
    for (const name of [
      'dynamic_controller_webhook_requests_total',
      'dynamic_controller_webhook_request_duration_seconds',
      'dynamic_controller_webhook_denials_total',
    ]) {
      registry.removeSingleMetric(name);
    }
  };
}
