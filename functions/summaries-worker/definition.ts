import { worker } from '#shared/http/routes.ts';

/**
 * What the summaries worker does (shared/summaries/job.ts): claims a job and records its progress
 * and end, frees the course's slot, and generates as the generate-summaries route does.
 */
export const definition = worker({
  name: 'summaries-worker',
  summary: "Per summaries-queue message: generates one large course's grade summaries as a job, recording its progress",
  data: {
    summaries: ['BatchGetItem', 'UpdateItem', 'DeleteItem', 'Query', 'BatchWriteItem'],
    courses: ['BatchGetItem', 'UpdateItem'],
    enrollments: ['Query'],
    users: ['BatchGetItem'],
    gradeables: ['Query'],
    submissions: ['Query'],
    teams: ['Query'],
    lateDays: ['Query'],
    // The summaries.generated event, written with the switch and removed once queued.
    webhookOutbox: ['PutItem', 'DeleteItem'],
  },
  // The generation is published as a webhook event.
  events: 'publish',
});
