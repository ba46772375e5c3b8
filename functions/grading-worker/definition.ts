import { worker } from '#shared/http/routes.ts';

/** What the grading worker does (shared/grading/worker/): claims jobs, records versions' states and results. */
export const definition = worker({
  name: 'grading-worker',
  summary: 'Per grading-queue wake-up: checks out the oldest queued job and grades it in a fresh CodeBuild build',
  // Checks out repositories through the git host guard; its time for a wake-up is its time limit.
  settings: ['ALLOWED_GIT_HOSTS', 'GRADING_LEASE_SECONDS'],
  data: {
    jobs: ['BatchGetItem', 'UpdateItem', 'Query byLease'],
    // A files version's files id is read from its version.
    submissions: ['BatchGetItem', 'UpdateItem'],
    results: ['PutItem'],
    gradeables: ['BatchGetItem'],
    // Whether the course's linked LMS courses take scores, read with the gradeable.
    courses: ['BatchGetItem'],
    // Each outcome's webhook event (and a grade for linked LMS courses), written with it and removed once queued.
    webhookOutbox: ['PutItem', 'DeleteItem'],
  },
  // A files version's stored files: listed, and read by the sandbox through presigned GETs.
  objects: { versions: ['GetObject', 'ListBucket'] },
  gradingSandbox: true,
  // Each graded version's record is signed with the deployment's record key, in the transaction that stores its result.
  recordKeys: 'sign',
  // A worker leaving jobs queued (its time ran out) wakes another; so does one whose jobs show the queue needs more builds.
  queue: 'send',
  // Graded and failed versions are published as webhook events (through the outbox).
  events: 'publish',
});
