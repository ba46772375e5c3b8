import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'publish-lti-scores',
  method: 'POST',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}/lti/publish',
  access: 'course:instructor',
  summary:
    "Resend a gradeable's grades to the LMS: every current grade, to each linked LMS course that takes scores (queued: the students or teams with a grade). Refused when no linked LMS course takes scores.",
  // The gradeable with the token check; the course's links and the gradeable's submissions (to count); one outbox entry, removed once queued.
  data: { gradeables: ['BatchGetItem'], lti: ['Query'], submissions: ['Query'], webhookOutbox: ['PutItem', 'DeleteItem'] },
  ltiScores: 'send',
});
