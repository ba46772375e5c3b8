import { setting } from '#shared/environment.ts';
import { logger } from '#shared/logger.ts';
import { sendWebhookMessage } from './queue.ts';
import { newMessageId, type WebhookEventType } from './webhook.ts';

/**
 * Publishes an event of a course to its webhooks: one message to the webhook queue, which the
 * delivery function fans out to the webhooks that asked for the event. What happened has happened
 * by then (a grade recorded, summaries switched), so a failure to publish is logged, never thrown.
 * A process without a webhook queue (a test of the grading code alone) publishes nothing.
 */
export async function publishEvent(
  type: WebhookEventType,
  course: { term: string; course: string },
  data: Record<string, unknown>,
  now = new Date(),
): Promise<void> {
  if (!setting('WEBHOOK_QUEUE_URL')) return;
  const event = { id: newMessageId(now), type, timestamp: now.toISOString(), term: course.term, course: course.course, data };
  try {
    await sendWebhookMessage({ kind: 'event', event });
  } catch (error) {
    logger.error({
      message: 'Could not publish a webhook event',
      type,
      course: `${course.term}/${course.course}`,
      eventId: event.id,
      error: error as Error,
    });
  }
}

/** `submission.graded` or `submission.failed`, once the worker recorded the outcome of a version. */
export function publishGradingOutcome(
  job: { term: string; course: string; gradeableId: string; ownerId: string; version: number },
  state: 'graded' | 'failed',
  outcome: { points: number; message?: string; commit?: string },
): Promise<void> {
  return publishEvent(state === 'graded' ? 'submission.graded' : 'submission.failed', job, {
    gradeable_id: job.gradeableId,
    owner_id: job.ownerId,
    version: job.version,
    points: outcome.points,
    message: outcome.message ?? null,
    // The commit graded (none before a checkout, or for a local folder without history).
    commit: outcome.commit ?? null,
  });
}

/** `summaries.generated`, once a course's new generation of grade summaries is current. */
export function publishSummariesGenerated(
  course: { term: string; course: string },
  report: { summaries: number; generated_at: string; generation: string },
): Promise<void> {
  return publishEvent('summaries.generated', course, {
    summaries: report.summaries,
    generated_at: report.generated_at,
    generation: report.generation,
  });
}
