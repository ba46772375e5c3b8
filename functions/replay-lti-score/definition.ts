import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'replay-lti-score',
  method: 'POST',
  path: '/api/{semester}/{course}/lti/scores/{score_delivery_id}/replay',
  access: 'course:instructor',
  summary:
    'Resend an LMS grade delivery: now (failed, skipped or sent), in a new round of tries, with the grade the gradebook shows then. Refused while it is pending (unless its try is an hour overdue), or when a try ends meanwhile.',
  // The delivery restarted with its next try's outbox entry in one transaction; the entry removed once queued.
  data: { lti: ['BatchGetItem', 'PutItem'], webhookOutbox: ['PutItem', 'DeleteItem'] },
  ltiScores: 'send',
});
