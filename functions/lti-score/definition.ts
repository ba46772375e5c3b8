import { worker } from '#shared/http/routes.ts';

/** What the lti-score function does (shared/gradebook/lti-scores.ts): sends grades to the linked LMS courses. */
export const definition = worker({
  name: 'lti-score',
  summary:
    'Per LTI-score-queue message: sends the grade the gradebook shows to each linked LMS course that takes scores (AGS), recording each delivery',
  settings: ['LTI_ALLOWED_HOSTS', 'WEBHOOK_RETRY_SCHEDULE'],
  data: {
    // The links, registrations, students' `sub`s, line items and deliveries.
    lti: ['Query', 'BatchGetItem', 'PutItem'],
    // What the gradebook shows for the student: the course, its gradeables, the student's enrollment,
    // profile, late days, team and submissions.
    courses: ['BatchGetItem'],
    gradeables: ['Query', 'BatchGetItem'],
    enrollments: ['BatchGetItem'],
    users: ['BatchGetItem'],
    lateDays: ['BatchGetItem'],
    teams: ['BatchGetItem'],
    // A publish lists the gradeable's submissions, to queue each student or team with a grade.
    submissions: ['BatchGetItem', 'Query'],
  },
  // The service token's assertion is signed with the tool's key.
  ltiKey: 'read',
  // A try to retry queues its next one on the same queue.
  ltiScores: 'send',
});
