import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { ErrorCode } from './envelope.ts';

/** The metrics the functions publish about their answers (CloudWatch embedded metric format). */
export const ANSWER_METRICS = {
  namespace: 'CourseSubmissionApi',
  service: 'course-submission-api',
  /**
   * `error` envelopes, by route and code (`RETRYABLE`, `UNKNOWN_OUTCOME`, `INTERNAL`), and in all
   * whatever their code (the alarm's metric).
   */
  errors: 'ErrorAnswers',
  /** `fail` envelopes by route: a client's mistake, counted, never alarmed. */
  failures: 'FailAnswers',
} as const;

let metrics: Metrics | undefined;

/**
 * Counts one answer that was not a success. An error is counted twice over: by route and code, to
 * find it, and with the service alone, for the alarm. `POWERTOOLS_METRICS_DISABLED=true` (the local
 * server) turns publishing off.
 */
export function countAnswer(status: 'fail' | 'error', routeKey: string, code?: ErrorCode): void {
  metrics ??= new Metrics({ namespace: ANSWER_METRICS.namespace, serviceName: ANSWER_METRICS.service });
  if (status === 'error') {
    metrics.addDimensions({ route: routeKey, code: code ?? 'INTERNAL' });
    metrics.addDimensions({});
    metrics.addMetric(ANSWER_METRICS.errors, MetricUnit.Count, 1);
  } else {
    metrics.addDimensions({ route: routeKey });
    metrics.addMetric(ANSWER_METRICS.failures, MetricUnit.Count, 1);
  }
  metrics.publishStoredMetrics();
}
