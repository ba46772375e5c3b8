import { config } from '#shared/config.ts';
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

/**
 * Counts one answer that was not a success, as one line of CloudWatch's embedded metric format on
 * stdout (CloudWatch reads it from the function's log; two counters do not need a metrics
 * library in every bundle). An error is counted twice over: by route and code, to find it, and
 * with the service alone, for the alarm. `POWERTOOLS_METRICS_DISABLED=true` (the local server)
 * turns publishing off.
 */
export function countAnswer(status: 'fail' | 'error', routeKey: string, code?: ErrorCode): void {
  if (config('POWERTOOLS_METRICS_DISABLED') === 'true') return;
  const dimensions = status === 'error' ? { route: routeKey, code: code ?? 'INTERNAL' } : { route: routeKey };
  const name = status === 'error' ? ANSWER_METRICS.errors : ANSWER_METRICS.failures;
  const document = {
    _aws: {
      Timestamp: Date.now(),
      CloudWatchMetrics: [
        {
          Namespace: ANSWER_METRICS.namespace,
          Dimensions: [['service', ...Object.keys(dimensions)], ...(status === 'error' ? [['service']] : [])],
          Metrics: [{ Name: name, Unit: 'Count' }],
        },
      ],
    },
    service: ANSWER_METRICS.service,
    ...dimensions,
    [name]: 1,
  };
  process.stdout.write(`${JSON.stringify(document)}\n`);
}
