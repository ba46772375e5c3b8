import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'generate-summaries',
  method: 'POST',
  path: '/api/{semester}/{course}/reports/summaries',
  aliases: ['/api/courses/{semester}/{course}/reports/summaries'],
  access: 'course:instructor',
  summary:
    'Generate every grade summary of the course (the nightly schedule runs the same function for all courses). A course of SUMMARIES_JOB_MIN_USERS members or more is generated on the summaries queue: the answer is a job object at once.',
  settings: ['SUMMARIES_JOB_MIN_USERS'],
  data: {
    summaries: ['Query', 'BatchWriteItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    courses: ['Scan', 'BatchGetItem', 'UpdateItem'],
    enrollments: ['Query'],
    users: ['BatchGetItem'],
    gradeables: ['Query'],
    submissions: ['Query'],
    teams: ['Query'],
    lateDays: ['Query'],
    // The summaries.generated event, written with the switch and removed once queued.
    webhookOutbox: ['PutItem', 'DeleteItem'],
  },
  events: 'publish',
  summariesQueue: 'send',
});
