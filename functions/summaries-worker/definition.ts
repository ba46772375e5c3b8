import { worker } from '#shared/http/routes.ts';

/**
 * What the summaries worker does (shared/summaries/job.ts): claims a job and records its progress
 * and end, frees the course's slot, and generates as the generate-summaries route does; and writes
 * gradebook exports (shared/gradebook/exports.ts), reading the class as the course-gradebook route
 * does, page by page, into the submissions bucket's exports area.
 */
export const definition = worker({
  name: 'summaries-worker',
  summary:
    "Per summaries-queue message: generates one large course's grade summaries as a job, recording its progress, or writes one gradebook export",
  data: {
    summaries: ['BatchGetItem', 'UpdateItem', 'DeleteItem', 'Query', 'BatchWriteItem'],
    courses: ['BatchGetItem', 'UpdateItem'],
    enrollments: ['Query', 'Query bySection', 'BatchGetItem'],
    users: ['BatchGetItem'],
    gradeables: ['Query'],
    submissions: ['Query', 'BatchGetItem'],
    teams: ['Query', 'BatchGetItem'],
    lateDays: ['Query', 'BatchGetItem'],
    // The summaries.generated event, written with the switch and removed once queued.
    webhookOutbox: ['PutItem', 'DeleteItem'],
  },
  // A gradebook export's CSV.
  objects: { exports: ['PutObject'] },
  // The generation is published as a webhook event.
  events: 'publish',
});
