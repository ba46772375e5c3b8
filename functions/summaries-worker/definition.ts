import { worker } from '#shared/http/routes.ts';

/**
 * What the summaries worker does (shared/summaries/job.ts): claims a job and records its progress
 * and end, frees the course's slot, and generates as the generate-summaries route does; and writes
 * gradebook exports (shared/gradebook/exports.ts), reading the class as the course-gradebook route
 * does, page by page, into the submissions bucket's exports area; and compares a gradeable's
 * submissions for a similarity run (shared/similarity/job.ts), reading their stored files or
 * checking their repositories' recorded commits out.
 */
export const definition = worker({
  name: 'summaries-worker',
  summary:
    "Per summaries-queue message: generates one large course's grade summaries as a job, recording its progress, writes one gradebook export, or compares one gradeable's submissions for a similarity report",
  data: {
    // A similarity run's pairs are each put once.
    summaries: ['BatchGetItem', 'UpdateItem', 'DeleteItem', 'Query', 'BatchWriteItem', 'PutItem'],
    courses: ['BatchGetItem', 'UpdateItem'],
    enrollments: ['Query', 'Query bySection', 'BatchGetItem'],
    users: ['BatchGetItem'],
    // A similarity run reads its gradeables' repository subdirectory.
    gradeables: ['Query', 'BatchGetItem'],
    submissions: ['Query', 'BatchGetItem'],
    teams: ['Query', 'BatchGetItem'],
    lateDays: ['Query', 'BatchGetItem'],
    // The summaries.generated event, written with the switch and removed once queued.
    webhookOutbox: ['PutItem', 'DeleteItem'],
  },
  // A gradebook export's CSV; a similarity run reads the versions' stored files, and reads or
  // stores their fingerprints and a repository version's compared texts (a missing one is listed
  // as missing, not refused).
  objects: { exports: ['PutObject'], versions: ['GetObject', 'ListBucket'], fingerprints: ['GetObject', 'PutObject', 'ListBucket'] },
  // A similarity run checks a repository version's commit out through the git host guard.
  settings: ['ALLOWED_GIT_HOSTS'],
  // The generation is published as a webhook event.
  events: 'publish',
});
