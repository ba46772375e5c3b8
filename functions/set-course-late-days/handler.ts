import { setDefaultStudentLateDays } from '#shared/courses/settings.ts';
import { endpoint } from '#shared/http/endpoint.ts';
// The course's late days may change the totals sent to linked LMS courses: they are checked again.
import { ltiSettingFollowUp } from '#shared/lti/score-queue.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  handle: ({ course, caller, body }) =>
    setDefaultStudentLateDays(course, caller.userId, body.default_student_late_days, ltiSettingFollowUp),
});
