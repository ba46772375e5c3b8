import { courseChangeData, route } from '#shared/http/routes.ts';
import { required, scalar, text } from '#shared/http/fields.ts';
import { configEntryMissing, configNameMissing } from '#shared/courses/failures.ts';

export const definition = route({
  name: 'set-course-config',
  method: 'POST',
  path: '/api/courses/{semester}/{course}/config',
  access: 'course:instructor-or-superuser',
  summary:
    'Set one setting of the course: name (course_name, default_student_late_days, timezone, archived_accepts_submissions, or for superusers access_group) and entry; answers the settings.',
  data: {
    ...courseChangeData(),
    // access_group: the course's staff markers are copied to the new group, its membership moved.
    accessGroups: ['Query', 'BatchWriteItem', 'PutItem', 'DeleteItem'],
    // default_student_late_days: the late-days check for linked LMS courses that take scores, written with the change.
    webhookOutbox: ['PutItem'],
  },
  input: () => ({
    body: {
      // In the reference's order: a missing (or empty) name is named first, then a missing entry.
      name: required(
        text(64, {
          description:
            'The setting: `course_name`, `default_student_late_days`, `timezone`, `archived_accepts_submissions`, or (superusers) `access_group`.',
        }),
        configNameMissing,
        { emptyIsMissing: true },
      ),
      entry: required(
        scalar({
          description:
            'Its value: a display name (1 to 100 characters), a whole number of late days (0 to 1000), an IANA time zone, true or false, or an access group name (1 to 64 letters, digits, `.`, `_` or `-`).',
        }),
        configEntryMissing,
      ),
    },
  }),
});
